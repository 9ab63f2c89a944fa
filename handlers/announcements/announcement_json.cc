#include "announcement_json.h"

namespace ca {

Json json_column(const Rows& rows, int row, int col) {
  // jsonb's text is JSON: printed as it is, numbers exactly as stored.
  if (rows.is_null(row, col)) return Json(cJSON_CreateNull());
  return json_raw(rows.text(row, col));
}

Json announcement_json(const Rows& r, int row, AnnouncementView view) {
  const bool full = view == AnnouncementView::kFull;
  Json a = json_object();
  cJSON* o = a.get();
  json_add_int(o, "id", r.int64(row, kColId));
  // SPEC shows tenant_id as a string on announcements.
  json_add_str(o, "tenant_id", r.text(row, kColTenantId));
  json_add_str(o, "title", r.text(row, kColTitle));
  json_add_str(o, "summary", r.text(row, kColSummary));
  json_add_str(o, "content", r.text(row, kColContent));
  json_add_str(o, "type", r.text(row, kColType));
  json_add_int(o, "priority", r.int64(row, kColPriority));
  json_add_str(o, "status", r.text(row, kColStatus));
  json_add_bool(o, "is_push_enabled", r.boolean(row, kColIsPushEnabled));
  json_add_bool(o, "is_public", r.boolean(row, kColIsPublic));
  json_add_opt_str(o, "scheduled_at", r.opt_text(row, kColScheduledAt));
  json_add_opt_str(o, "expires_at", r.opt_text(row, kColExpiresAt));
  json_add_opt_str(o, "topic", r.opt_text(row, kColTopic));
  if (full) {
    json_add_opt_str(o, "push_title", r.opt_text(row, kColPushTitle));
    json_add_opt_str(o, "push_body", r.opt_text(row, kColPushBody));
    json_add(o, "push_data", json_column(r, row, kColPushData));
    json_add_str(o, "target_type", r.text(row, kColTargetType));
    json_add_opt_str(o, "target_value", r.opt_text(row, kColTargetValue));
  }
  json_add_str(o, "push_status", r.text(row, kColPushStatus));
  if (full) json_add_opt_str(o, "push_error", r.opt_text(row, kColPushError));
  json_add_opt_str(o, "sent_at", r.opt_text(row, kColSentAt));
  json_add_opt_str(o, "attachment_type", r.opt_text(row, kColAttachmentType));
  json_add_opt_str(o, "attachment_url", r.opt_text(row, kColAttachmentUrl));
  if (full) json_add(o, "attachment_metadata", json_column(r, row, kColAttachmentMetadata));
  json_add_int(o, "created_by", r.int64(row, kColCreatedBy));
  Json creator = json_object();
  json_add_int(creator.get(), "id", r.int64(row, kColCreatedBy));
  json_add_str(creator.get(), "name", r.text(row, kColCreatorName));
  json_add_str(creator.get(), "email", r.text(row, kColCreatorEmail));
  json_add(o, "creator", std::move(creator));
  json_add_str(o, "created_at", r.text(row, kColCreatedAt));
  json_add_str(o, "updated_at", r.text(row, kColUpdatedAt));
  return a;
}

}  // namespace ca
