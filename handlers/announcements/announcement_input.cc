#include "announcement_input.h"

#include <algorithm>

#include "validate.h"

namespace ca {
namespace {

constexpr size_t kTopicMax = 100;
// The bounds the API states nowhere else (docs/decisions/0020-announcement-size-bounds.md):
// every answer and event body that holds announcements stays bounded
// (docs/security.md, "Largest answers").
constexpr size_t kContentMaxCharacters = 65'536;
constexpr size_t kContentMaxJsonBytes = 131'072;  // written as a JSON string
constexpr size_t kObjectMaxBytes = 16'384;        // push_data, attachment_metadata
constexpr size_t kUrlMax = 2'048;
constexpr size_t kTargetUsersMax = 1'000;
constexpr size_t kTargetValueMax = 20'000;  // 1,000 ids of 18 digits, ", " between

// Applies an optional text field: absent keeps the current value; null or ""
// clears it (an empty optional text means "none", as null does).
void apply_optional(const Field<std::string>& f, std::optional<std::string>* out) {
  if (!f.present) return;
  if (f.null || f.value.empty()) {
    out->reset();
  } else {
    *out = f.value;
  }
}

void apply_timestamp(BodyReader& in, const char* name, std::optional<Timestamp>* out) {
  auto f = in.str(name, {.nullable = true});
  if (!f.present) return;
  if (f.null || f.value.empty()) {
    out->reset();
    return;
  }
  auto ts = parse_timestamp(f.value);
  if (!ts) {
    in.fail(name, "The " + std::string(name) +
                      " field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z.");
    return;
  }
  *out = std::move(*ts);
}

void apply_object(BodyReader& in, const char* name, std::optional<std::string>* out) {
  auto f = in.object(name, {.nullable = true});
  if (!f.present) return;
  if (f.null) {
    out->reset();
  } else if (!json_numbers_finite(f.value)) {
    // 1e400 parses as infinity and would be stored as null; 1e-400 as 0
    // (json_check_text() marks it NaN).
    in.fail(name, "The " + std::string(name) +
                      " field must not hold a number beyond 1.8e308, or a nonzero one "
                      "below 2.2250738585072014e-308 in magnitude.");
  } else if (json_stored_size(f.value) > kObjectMaxBytes) {
    // Compact, with numbers as PostgreSQL keeps them (1e300 is 301 digits):
    // the answers print the stored form.
    in.fail(name, "The " + std::string(name) + " field must not be larger than " +
                      std::to_string(kObjectMaxBytes) + " bytes.");
  } else {
    *out = json_dump(f.value);
  }
}

std::optional<Timestamp> stored_timestamp(const Rows& r, int row, Col col) {
  if (r.is_null(row, col)) return std::nullopt;
  return parse_timestamp(r.text(row, col));
}

bool sent_value(const cJSON* body, const char* name) {
  const cJSON* item = json_get(body, name);
  return item != nullptr && !cJSON_IsNull(item) &&
         !(cJSON_IsString(item) && item->valuestring[0] == '\0');
}

}  // namespace

AnnouncementFields announcement_fields_from_row(const Rows& r, int row) {
  AnnouncementFields f;
  f.title = r.str(row, "title");
  f.summary = r.str(row, "summary");
  f.content = r.str(row, "content");
  f.type = r.str(row, "type");
  f.priority = r.int64(row, "priority");
  f.status = r.str(row, "status");
  f.is_push_enabled = r.boolean(row, "is_push_enabled");
  f.is_public = r.boolean(row, "is_public");
  f.scheduled_at = stored_timestamp(r, row, r.col("scheduled_at"));
  f.expires_at = stored_timestamp(r, row, r.col("expires_at"));
  f.topic = r.opt_str(row, "topic");
  f.push_title = r.opt_str(row, "push_title");
  f.push_body = r.opt_str(row, "push_body");
  f.push_data = r.opt_str(row, "push_data");
  f.target_type = r.str(row, "target_type");
  f.target_value = r.opt_str(row, "target_value");
  f.push_status = r.str(row, "push_status");
  f.attachment_type = r.opt_str(row, "attachment_type");
  f.attachment_url = r.opt_str(row, "attachment_url");
  f.attachment_metadata = r.opt_str(row, "attachment_metadata");
  return f;
}

void announcement_read_body(const cJSON* body, InputMode mode, AnnouncementFields* f,
                            FieldErrors& errs) {
  const bool create = mode == InputMode::kCreate;
  BodyReader in(body, errs);

  auto title = in.str("title", {.required = create, .trim = true, .max = 255});
  if (title.has_value()) {
    // On update an empty title is refused as well (create reports it as required).
    if (title.value.empty()) {
      in.fail("title", "The title field must not be empty.");
    } else {
      f->title = title.value;
    }
  }
  auto summary = in.str("summary", {.nullable = true, .max = 500});
  if (summary.present) f->summary = summary.null ? "" : summary.value;
  auto content = in.str("content", {.nullable = true, .max = kContentMaxCharacters});
  if (content.has_value() && json_escaped_size(content.value) > kContentMaxJsonBytes) {
    in.fail("content", "The content field must not be larger than " +
                           std::to_string(kContentMaxJsonBytes) +
                           " bytes written as a JSON string.");
  } else if (content.present) {
    f->content = content.null ? "" : content.value;
  }
  auto type =
      in.str("type", {.required = create, .one_of = {"info", "warning", "success", "alert"}});
  if (type.has_value()) f->type = type.value;
  auto priority = in.integer("priority", {.min = 0, .max = 1});
  if (priority.has_value()) f->priority = priority.value;
  auto status = in.str(
      "status", {.required = create, .one_of = {"draft", "scheduled", "published", "archived"}});
  if (status.has_value()) f->status = status.value;
  auto push = in.boolean("is_push_enabled", {});
  if (push.has_value()) f->is_push_enabled = push.value;
  auto is_public = in.boolean("is_public", {});
  if (is_public.has_value()) f->is_public = is_public.value;
  apply_timestamp(in, "scheduled_at", &f->scheduled_at);
  apply_timestamp(in, "expires_at", &f->expires_at);
  apply_optional(in.str("topic", {.nullable = true, .max = kTopicMax}), &f->topic);
  apply_optional(in.str("push_title", {.nullable = true, .max = 100}), &f->push_title);
  apply_optional(in.str("push_body", {.nullable = true, .max = 200}), &f->push_body);
  apply_object(in, "push_data", &f->push_data);
  auto target_type = in.str("target_type", {.one_of = {"topic", "all", "users"}});
  if (target_type.has_value()) f->target_type = target_type.value;
  apply_optional(in.str("target_value", {.nullable = true, .max = kTargetValueMax}),
                 &f->target_value);
  // "" is "no attachment", like null, so it is not checked against the list.
  if (json_get_str(body, "attachment_type") == std::optional<std::string_view>("")) {
    f->attachment_type.reset();
  } else {
    apply_optional(
        in.str("attachment_type", {.nullable = true, .one_of = {"image", "link", "button"}}),
        &f->attachment_type);
  }
  auto url = in.str("attachment_url", {.nullable = true, .trim = true, .max = kUrlMax});
  if (url.has_value() && !url.value.empty() && !is_http_url(url.value)) {
    in.fail("attachment_url", "The attachment_url field must be a valid http or https URL.");
  } else {
    apply_optional(url, &f->attachment_url);
  }
  apply_object(in, "attachment_metadata", &f->attachment_metadata);
}

bool announcement_status_move_allowed(const std::string& from, const std::string& to) {
  if (from == to) return true;
  if (from == "draft") return to == "published" || to == "scheduled" || to == "archived";
  if (from == "scheduled") return to == "published" || to == "draft" || to == "archived";
  if (from == "published") return to == "archived";
  return false;  // archived is final
}

void announcement_check(const cJSON* body, const std::string& previous_status,
                        const std::string& previous_push_status, AnnouncementFields* f,
                        FieldErrors& errs) {
  if (!previous_status.empty() && !errs.has("status") &&
      !announcement_status_move_allowed(previous_status, f->status)) {
    errs.add("status", "The status cannot change from " + previous_status + " to " + f->status +
                           (previous_status == "archived" ? "; archived is final." : "."));
  }
  if (f->status == "scheduled" && !f->scheduled_at && !errs.has("scheduled_at")) {
    errs.add("scheduled_at", "The scheduled_at field is required when status is scheduled.");
  }
  if (f->scheduled_at && f->expires_at && f->expires_at->micros <= f->scheduled_at->micros &&
      !errs.has("expires_at") && !errs.has("scheduled_at")) {
    errs.add("expires_at", "The expires_at field must be a date-time after scheduled_at.");
  }
  if (f->attachment_type && !f->attachment_url && !errs.has("attachment_url")) {
    errs.add("attachment_url", "The attachment_url field is required when attachment_type is set.");
  }

  if (!errs.has("target_value") && !errs.has("target_type")) {
    if (f->target_type == "all") {
      if (sent_value(body, "target_value")) {
        errs.add("target_value", "The target_value field must be empty when target_type is all.");
      }
      // A value kept from an earlier target means nothing for `all`.
      f->target_value.reset();
    } else if (!f->target_value) {
      errs.add("target_value",
               "The target_value field is required when target_type is " + f->target_type + ".");
    } else if (f->target_type == "users") {
      auto ids = parse_id_list(*f->target_value);
      if (!ids) {
        errs.add("target_value",
                 "The target_value field must be a comma-separated list of user ids when "
                 "target_type is users.");
      } else if (std::count(ids->begin(), ids->end(), ',') + size_t{1} > kTargetUsersMax) {
        errs.add("target_value", "The target_value field must not list more than " +
                                     std::to_string(kTargetUsersMax) + " user ids.");
      } else {
        f->target_value = *ids;
      }
    } else if (utf8_length(*f->target_value) > kTopicMax) {
      errs.add("target_value",
               "The target_value field must not be greater than 100 characters when target_type "
               "is topic.");
    }
  }

  // Push bookkeeping: once a push was attempted its outcome stays; before
  // that it follows is_push_enabled, and nothing goes out for an archived one.
  if (previous_push_status == "pending" || previous_push_status == "skipped") {
    f->push_status = f->is_push_enabled && f->status != "archived" ? "pending" : "skipped";
  } else {
    f->push_status = previous_push_status;
  }
}

void announcement_params(const AnnouncementFields& f, std::vector<Param>* p) {
  p->emplace_back(f.title);
  p->emplace_back(f.summary);
  p->emplace_back(f.content);
  p->emplace_back(f.type);
  p->emplace_back(f.priority);
  p->emplace_back(f.status);
  p->emplace_back(f.is_push_enabled);
  p->emplace_back(f.is_public);
  p->emplace_back(f.scheduled_at ? Param(f.scheduled_at->canonical) : Param());
  p->emplace_back(f.expires_at ? Param(f.expires_at->canonical) : Param());
  p->emplace_back(f.topic);
  p->emplace_back(f.push_title);
  p->emplace_back(f.push_body);
  p->emplace_back(f.push_data);
  p->emplace_back(f.target_type);
  p->emplace_back(f.target_value);
  p->emplace_back(f.push_status);
  p->emplace_back(f.attachment_type);
  p->emplace_back(f.attachment_url);
  p->emplace_back(f.attachment_metadata);
}

}  // namespace ca
