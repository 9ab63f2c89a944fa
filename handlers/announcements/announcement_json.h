// The Announcement resource as JSON (docs/openapi.yaml "Announcement"), rendered by
// PostgreSQL: ca_announcement_json (sql/025) is its one definition, and
// these macros are the one call of it. A statement selects
// CA_ANNOUNCEMENT_JSON (every field) or CA_ANNOUNCEMENT_LIST_JSON (the
// paginated list's view) from `announcements a JOIN users u ON u.id =
// a.created_by` (`a` may be a CTE of RETURNING *), as the column `json`; the
// handler prints it as it is (common/json_rendered.h). The active list's
// view is stored with the row (announcements.active_json, sql/016).
#pragma once

#define CA_ANNOUNCEMENT_JSON_VIEW(all_fields)                                                     \
  "ca_announcement_json(" all_fields                                                              \
  ", a.id, a.tenant_id, a.title, a.summary, a.content, a.type, a.priority, a.status, "            \
  "a.is_push_enabled, a.is_public, a.scheduled_at, a.expires_at, a.topic, a.push_title, "         \
  "a.push_body, a.push_data, a.target_type, a.target_value, a.push_status, a.push_error, "        \
  "a.sent_at, a.attachment_type, a.attachment_url, a.attachment_metadata, a.created_by, u.name, " \
  "u.email, a.created_at, a.updated_at) AS json"
// Every field (create, read, update, the announcement.published event).
#define CA_ANNOUNCEMENT_JSON CA_ANNOUNCEMENT_JSON_VIEW("true")
// The paginated list: without push_title, push_body, push_data,
// target_type, target_value, push_error and attachment_metadata.
#define CA_ANNOUNCEMENT_LIST_JSON CA_ANNOUNCEMENT_JSON_VIEW("false")
