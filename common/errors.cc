#include "errors.h"

#include "log.h"
#include "metrics.h"

namespace ca {

void FieldErrors::add(const std::string& field, std::string message) {
  auto it = index_.find(field);
  if (it == index_.end()) {
    index_.emplace(field, fields_.size());
    fields_.push_back({field, {std::move(message)}});
  } else {
    fields_[it->second].second.push_back(std::move(message));
  }
}

Json FieldErrors::to_json() const {
  Json out = json_object();
  for (const auto& [field, messages] : fields_) {
    Json list = json_array();
    for (const std::string& m : messages)
      json_append(list.get(), Json(cJSON_CreateString(m.c_str())));
    json_add_copied_key(out.get(), field, std::move(list));
  }
  return out;
}

namespace errors {

Response unauthenticated() {
  return Response::error(401, "Unauthenticated").header("WWW-Authenticate", "Bearer");
}

Response forbidden(std::string_view message) { return Response::error(403, message); }
Response bad_request(std::string_view message) { return Response::error(400, message); }
Response conflict(std::string_view message) { return Response::error(409, message); }

Response not_found(std::string_view message, ErrorStyle style) {
  if (style == ErrorStyle::kPlain) return Response::error(404, message);
  Json body = json_object();
  json_add_bool(body.get(), "success", false);
  json_add_str(body.get(), "message", message);
  return Response::json(404, body);
}

Response validation(const FieldErrors& errors, ErrorStyle style) {
  Json body = json_object();
  if (style == ErrorStyle::kPlain) {
    json_add_str(body.get(), "message", "The given data was invalid.");
  } else {
    json_add_bool(body.get(), "success", false);
  }
  json_add(body.get(), "errors", errors.to_json());
  return Response::json(422, body);
}

Response internal(std::string_view what, ErrorStyle style) {
  log_error("internal error: %.*s", static_cast<int>(what.size()), what.data());
  Json body = json_object();
  if (style == ErrorStyle::kPlain) {
    json_add_str(body.get(), "error", "Internal server error");
  } else {
    json_add_bool(body.get(), "success", false);
    json_add_str(body.get(), "message", "Internal server error");
    json_add_str(body.get(), "error", "The request could not be completed; nothing was saved.");
  }
  // What an operator needs to find this request's log lines (X-Request-Id).
  const std::string& id = log_request_context().request_id;
  if (!id.empty()) json_add_str(body.get(), "request_id", id);
  return Response::json(500, body);
}

Response database(const DbError& error, ErrorStyle style) {
  if (error.kind == DbErrorKind::kConnection || error.kind == DbErrorKind::kTimeout) {
    metrics_record_db_error(error.kind);
    if (error.kind == DbErrorKind::kTimeout) {
      log_warn("request past its database time limit: %s", error.message.c_str());
    } else {
      log_error("database unavailable: %s", error.message.c_str());
    }
    Json body = json_object();
    if (style == ErrorStyle::kSuccess) json_add_bool(body.get(), "success", false);
    json_add_str(body.get(), style == ErrorStyle::kSuccess ? JsonKey("message") : JsonKey("error"),
                 "Service temporarily unavailable");
    return Response::json(503, body).header("Retry-After", "1");
  }
  return internal("database [" + error.sqlstate + "] " + error.message, style);
}

}  // namespace errors
}  // namespace ca
