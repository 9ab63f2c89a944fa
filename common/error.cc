#include "error.h"

#include "log.h"
#include "metrics.h"
#include "validate.h"

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

namespace {

Error with(ErrorKind kind, std::string message) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

// Constraints whose violation is the client's mistake, by name (sql/): the
// field error a statement meeting it answers, on whichever endpoint. A
// violation of any other constraint is a bug (500).
struct ConstraintError {
  const char* constraint;
  const char* field;
  std::string message;
};
const ConstraintError kConstraintErrors[] = {
    // sql/002: a category name is unique per tenant, case-insensitively.
    {"categories_name_key", "name", "The name has already been taken."},
    // sql/002: the category was deleted between the product's check and its write.
    {"products_tenant_id_category_id_fkey", "category_id", "The selected category_id is invalid."},
    // sql/018: the merged settings are over the size limit.
    {"tenants_settings_size", "settings", settings_too_large_message()},
};

// `name` without a Citus shard suffix ("categories_name_key_102008"): on a
// worker, constraints carry their shard's id.
std::string_view without_shard_suffix(std::string_view name) {
  size_t underscore = name.rfind('_');
  if (underscore == std::string_view::npos || underscore + 1 == name.size()) return name;
  for (size_t i = underscore + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, underscore);
}

const ConstraintError* known_constraint(const DbError& error) {
  if (error.constraint.empty()) return nullptr;
  std::string_view name = error.constraint;
  for (std::string_view candidate : {name, without_shard_suffix(name)}) {
    for (const ConstraintError& c : kConstraintErrors) {
      if (candidate == c.constraint) return &c;
    }
  }
  return nullptr;
}

Response success_false(int status, std::string_view message) {
  Json body = json_object();
  json_add_bool(body.get(), "success", false);
  json_add_str(body.get(), "message", message);
  return Response::json(status, body);
}

Response internal_response(ErrorStyle style) {
  Json body = json_object();
  if (style == ErrorStyle::kSuccess) {
    json_add_bool(body.get(), "success", false);
    json_add_str(body.get(), "message", "Internal server error");
    json_add_str(body.get(), "error", "The request could not be completed; nothing was saved.");
  } else {
    json_add_str(body.get(), "error", "Internal server error");
  }
  // What an operator needs to find this request's log lines (X-Request-Id).
  const std::string& id = log_request_context().request_id;
  if (!id.empty()) json_add_str(body.get(), "request_id", id);
  return Response::json(500, body);
}

}  // namespace

Error Error::bad_request(std::string message) {
  return with(ErrorKind::kBadRequest, std::move(message));
}
Error Error::unauthenticated() { return with(ErrorKind::kUnauthenticated, "Unauthenticated"); }
Error Error::bad_credentials(std::string message) {
  return with(ErrorKind::kBadCredentials, std::move(message));
}
Error Error::forbidden(std::string message) {
  return with(ErrorKind::kForbidden, std::move(message));
}
Error Error::not_found(std::string message) {
  return with(ErrorKind::kNotFound, std::move(message));
}
Error Error::method_not_allowed(std::string allow) {
  Error e = with(ErrorKind::kMethodNotAllowed, "Method not allowed");
  e.allow = std::move(allow);
  return e;
}
Error Error::conflict(std::string message) {
  return with(ErrorKind::kConflict, std::move(message));
}
Error Error::request_timeout(std::string message) {
  return with(ErrorKind::kRequestTimeout, std::move(message));
}

Error Error::payload_too_large(std::string message) {
  return with(ErrorKind::kPayloadTooLarge, std::move(message));
}
Error Error::invalid(FieldErrors fields) {
  Error e = with(ErrorKind::kInvalid, "The given data was invalid.");
  e.fields = std::move(fields);
  return e;
}
std::string Error::limit_message(std::string_view what, int64_t max, std::string_view setting) {
  return "The limit of " + std::to_string(max) + " " + std::string(what) + " is reached (" +
         std::string(setting) + ").";
}
Error Error::limit_reached(std::string_view what, int64_t max, std::string_view setting) {
  FieldErrors fields;
  fields.add("limit", limit_message(what, max, setting));
  return invalid(std::move(fields));
}
Error Error::too_many_requests(std::string message, int64_t retry_after_seconds) {
  Error e = with(ErrorKind::kTooManyRequests, std::move(message));
  e.retry_after = retry_after_seconds;
  return e;
}
Error Error::client_closed(std::string message) {
  return with(ErrorKind::kClientClosed, std::move(message));
}
Error Error::internal(std::string what) {
  log_error("internal error: %s", what.c_str());
  return with(ErrorKind::kInternal, std::move(what));
}
Error Error::unavailable(std::string message, int64_t retry_after_seconds) {
  Error e = with(ErrorKind::kUnavailable, std::move(message));
  e.retry_after = retry_after_seconds;
  return e;
}
Error Error::answered() { return with(ErrorKind::kAnswered, "answered by an idempotent replay"); }

Error Error::database(const DbError& error) {
  if (error.kind == DbErrorKind::kConnection || error.kind == DbErrorKind::kTimeout) {
    metrics_record_db_error(error.kind);
    if (error.kind == DbErrorKind::kTimeout) {
      log_warn("request past its database time limit: %s", error.message.c_str());
    } else {
      log_error("database unavailable: %s", error.message.c_str());
    }
    return unavailable("Service temporarily unavailable", 1);
  }
  // PostgreSQL chose this transaction as a deadlock's victim (40P01; on
  // Citus also a distributed deadlock, or a write caught by a shard move's
  // final switch) or could not serialize it (40001). It was rolled back
  // whole, so the same request again is safe: 503 with Retry-After, like
  // any other moment the database could not serve it.
  if (error.kind == DbErrorKind::kSerialization) {
    log_warn("transaction rolled back by the database, the client may retry: [%s] %s",
             error.sqlstate.c_str(), error.message.c_str());
    return unavailable("Service temporarily unavailable", 1);
  }
  if (const ConstraintError* c = known_constraint(error)) {
    FieldErrors fields;
    fields.add(c->field, c->message);
    return invalid(std::move(fields));
  }
  // A write statement's own refusal (ca_refuse(), sql/014; common/request_tx.h):
  // its message is the answer's.
  if (error.sqlstate == "CA400") return bad_request(error.message);
  if (error.sqlstate == "CA409") return conflict(error.message);
  // A cap the statement counted (limit_message()): 422 under "limit".
  if (error.sqlstate == "CA422") {
    FieldErrors fields;
    fields.add("limit", error.message);
    return invalid(std::move(fields));
  }
  return internal("database [" + error.sqlstate + "] " + error.message);
}

Response render(const Error& error, ErrorStyle style) {
  // 404, 422, 500 and 503 are the kinds whose shape differs by style.
  bool success_4xx = style != ErrorStyle::kPlain;
  bool success_5xx = style == ErrorStyle::kSuccess;
  switch (error.kind) {
    case ErrorKind::kBadRequest:
      return Response::error(400, error.message);
    case ErrorKind::kUnauthenticated:
      return Response::error(401, error.message).header("WWW-Authenticate", "Bearer");
    case ErrorKind::kBadCredentials:
      return Response::error(401, error.message);
    case ErrorKind::kForbidden:
      return Response::error(403, error.message);
    case ErrorKind::kNotFound:
      return success_4xx ? success_false(404, error.message) : Response::error(404, error.message);
    case ErrorKind::kMethodNotAllowed:
      return Response::error(405, error.message).header("Allow", error.allow);
    case ErrorKind::kRequestTimeout:
      return Response::error(408, error.message);
    case ErrorKind::kConflict:
      return Response::error(409, error.message);
    case ErrorKind::kPayloadTooLarge:
      return Response::error(413, error.message);
    case ErrorKind::kInvalid: {
      Json body = json_object();
      if (success_4xx) {
        json_add_bool(body.get(), "success", false);
      } else {
        json_add_str(body.get(), "message", error.message);
      }
      json_add(body.get(), "errors", error.fields.to_json());
      return Response::json(422, body);
    }
    case ErrorKind::kTooManyRequests:
      return Response::error(429, error.message)
          .header("Retry-After", std::to_string(error.retry_after));
    case ErrorKind::kClientClosed:
      return Response::error(499, error.message);
    case ErrorKind::kUnavailable: {
      Response r =
          success_5xx ? success_false(503, error.message) : Response::error(503, error.message);
      return r.header("Retry-After", std::to_string(error.retry_after));
    }
    case ErrorKind::kInternal:
    case ErrorKind::kAnswered:
      break;
  }
  return internal_response(success_5xx ? ErrorStyle::kSuccess : ErrorStyle::kPlain);
}

}  // namespace ca
