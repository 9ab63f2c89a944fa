// Reading and checking the writable fields of an announcement (docs/openapi.yaml
// "AnnouncementCreateRequest", docs/design/api-conventions.md "Announcements").
//
// Create and update share it: create starts from the defaults, update from
// the stored record; the body's valid fields overwrite them, then the rules
// that involve several fields (scheduled_at for `scheduled`, attachment_url
// for attachment_type, target_value per target_type, the status moves) run
// on the merged record. Every failure lands in one FieldErrors.
#pragma once

#include <cjson/cJSON.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db.h"
#include "error.h"
#include "formats.h"

namespace ca {

struct AnnouncementFields {
  std::string title;
  std::string summary;
  std::string content;
  std::string type;
  int64_t priority = 0;
  std::string status;
  bool is_push_enabled = false;
  bool is_public = false;
  std::optional<Timestamp> scheduled_at;
  std::optional<Timestamp> expires_at;
  std::optional<std::string> topic;
  std::optional<std::string> push_title;
  std::optional<std::string> push_body;
  std::optional<std::string> push_data;  // JSON object text
  std::string target_type = "all";
  std::optional<std::string> target_value;
  std::string push_status = "pending";
  std::optional<std::string> attachment_type;
  std::optional<std::string> attachment_url;
  std::optional<std::string> attachment_metadata;  // JSON object text
};

// The writable columns of `announcements a`, named as the fields above.
#define CA_ANNOUNCEMENT_FIELDS                                                       \
  "a.title, a.summary, a.content, a.type, a.priority, a.status, a.is_push_enabled, " \
  "a.is_public, a.scheduled_at, a.expires_at, a.topic, a.push_title, a.push_body, "  \
  "a.push_data::text AS push_data, a.target_type, a.target_value, a.push_status, "   \
  "a.attachment_type, a.attachment_url, a.attachment_metadata::text AS attachment_metadata"

// The stored record, from a row that selects CA_ANNOUNCEMENT_FIELDS.
AnnouncementFields announcement_fields_from_row(const Rows& rows, int row);

enum class InputMode { kCreate, kUpdate };

// Checks every field `body` sends; each valid one overwrites `fields`. In
// kCreate mode title, type and status are required.
void announcement_read_body(const cJSON* body, InputMode mode, AnnouncementFields* fields,
                            FieldErrors& errs);

// The rules on the merged record. `previous_status` is the stored status on
// update (checked against the allowed moves), empty on create. Fields that
// already failed are not reported twice. Also derives push_status and
// normalises target_value.
void announcement_check(const cJSON* body, const std::string& previous_status,
                        const std::string& previous_push_status, AnnouncementFields* fields,
                        FieldErrors& errs);

// The 20 writable columns as statement parameters, in this order: title,
// summary, content, type, priority, status, is_push_enabled, is_public,
// scheduled_at, expires_at, topic, push_title, push_body, push_data,
// target_type, target_value, push_status, attachment_type, attachment_url,
// attachment_metadata. Appended to `params`.
void announcement_params(const AnnouncementFields& fields, std::vector<Param>* params);

// Whether the status may move from `from` to `to` (the same status is allowed).
bool announcement_status_move_allowed(const std::string& from, const std::string& to);

}  // namespace ca
