// The Announcement resource as JSON (SPEC "Announcement"), built from the
// columns of CA_ANNOUNCEMENT_COLUMNS.
//
// Shared by the announcements handler (responses) and the worker (the
// `announcement.published` event payload), so both show the same record.
// Statements select CA_ANNOUNCEMENT_COLUMNS from `announcements a JOIN users u
// ON u.id = a.created_by`; the column indexes below follow that list.
#pragma once

#include "db.h"
#include "json.h"

// Keep in step with the kCol* indexes.
#define CA_ANNOUNCEMENT_COLUMNS                                                                  \
  "a.id, a.tenant_id, a.title, a.summary, a.content, a.type, a.priority, a.status, "             \
  "a.is_push_enabled, a.is_public, a.scheduled_at, a.expires_at, a.topic, "                      \
  "a.push_title, a.push_body, a.push_data::text, a.target_type, a.target_value, a.push_status, " \
  "a.push_error, a.sent_at, a.attachment_type, a.attachment_url, "                               \
  "a.attachment_metadata::text, a.created_by, u.name, u.email, a.created_at, "                   \
  "a.updated_at"

namespace ca {

enum AnnouncementColumn {
  kColId,
  kColTenantId,
  kColTitle,
  kColSummary,
  kColContent,
  kColType,
  kColPriority,
  kColStatus,
  kColIsPushEnabled,
  kColIsPublic,
  kColScheduledAt,
  kColExpiresAt,
  kColTopic,
  kColPushTitle,
  kColPushBody,
  kColPushData,
  kColTargetType,
  kColTargetValue,
  kColPushStatus,
  kColPushError,
  kColSentAt,
  kColAttachmentType,
  kColAttachmentUrl,
  kColAttachmentMetadata,
  kColCreatedBy,
  kColCreatorName,
  kColCreatorEmail,
  kColCreatedAt,
  kColUpdatedAt,
  kAnnouncementColumnCount,
};

enum class AnnouncementView {
  kFull,  // every field (create, read, update, event payload)
  // The paginated list: without push_title, push_body, push_data,
  // target_type, target_value, push_error and attachment_metadata.
  kList,
};

Json announcement_json(const Rows& rows, int row, AnnouncementView view = AnnouncementView::kFull);

// A JSON object or null from a jsonb column's text.
Json json_column(const Rows& rows, int row, int col);

}  // namespace ca
