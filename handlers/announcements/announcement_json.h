// The Announcement resource as JSON (docs/openapi.yaml "Announcement"), rendered by
// PostgreSQL: ca_announcement_json (sql/058) is its one definition, and
// these macros are the one call of it. A statement selects
// CA_ANNOUNCEMENT_JSON (every field) or CA_ANNOUNCEMENT_LIST_JSON (the
// paginated list's view) from `announcements a JOIN users u ON u.id =
// a.created_by` (`a` may be a CTE of RETURNING *), as the column `json`; the
// handler prints it as it is (common/json_rendered.h). The active list's
// view is stored with the row (announcements.active_json, sql/016).
#pragma once

#define CA_ANNOUNCEMENT_JSON_VIEW(all_fields)                                          \
  "ca_announcement_json(all_fields => " all_fields                                     \
  ", id => a.id, tenant_id => a.tenant_id, title => a.title, summary => a.summary, "   \
  "content => a.content, type => a.type, priority => a.priority, status => a.status, " \
  "is_push_enabled => a.is_push_enabled, is_public => a.is_public, "                   \
  "scheduled_at => a.scheduled_at, expires_at => a.expires_at, topic => a.topic, "     \
  "push_title => a.push_title, push_body => a.push_body, push_data => a.push_data, "   \
  "target_type => a.target_type, target_value => a.target_value, "                     \
  "push_status => a.push_status, push_error => a.push_error, sent_at => a.sent_at, "   \
  "attachment_type => a.attachment_type, attachment_url => a.attachment_url, "         \
  "attachment_metadata => a.attachment_metadata, created_by => a.created_by, "         \
  "creator_name => u.name, creator_email => u.email, created_at => a.created_at, "     \
  "updated_at => a.updated_at) AS json"
// Every field (create, read, update, the announcement.published event).
#define CA_ANNOUNCEMENT_JSON CA_ANNOUNCEMENT_JSON_VIEW("true")
// The paginated list: without push_title, push_body, push_data,
// target_type, target_value, push_error and attachment_metadata.
#define CA_ANNOUNCEMENT_LIST_JSON CA_ANNOUNCEMENT_JSON_VIEW("false")
