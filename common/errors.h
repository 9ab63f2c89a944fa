// The one place where error kinds become HTTP statuses and body shapes.
//
// SPEC.md uses several shapes: `{error}` (generic), `{message, errors}`
// (validation, role update and products), `{success:false, errors}`
// (validation of orders, announcements, categories) and
// `{success:false, message}` (not-found of orders and announcements).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "db.h"
#include "http.h"

namespace ca {

// ErrorStyle (http.h): which family of body shapes an endpoint uses.

// Field-level validation errors, collected so every failing field is reported.
class FieldErrors {
 public:
  void add(const std::string& field, std::string message);
  bool empty() const { return fields_.empty(); }
  bool has(const std::string& field) const { return index_.count(field) != 0; }
  Json to_json() const;

 private:
  // Ordered by first insertion, so the body lists fields in check order.
  std::vector<std::pair<std::string, std::vector<std::string>>> fields_;
  std::map<std::string, size_t> index_;
};

namespace errors {

Response unauthenticated();                      // 401 {error: "Unauthenticated"}
Response forbidden(std::string_view message);    // 403 {error}
Response bad_request(std::string_view message);  // 400 {error}
Response conflict(std::string_view message);     // 409 {error}
Response not_found(std::string_view message, ErrorStyle style = ErrorStyle::kPlain);
Response validation(const FieldErrors& errors, ErrorStyle style = ErrorStyle::kPlain);  // 422
// 500; logs `what` (never sent to the client).
Response internal(std::string_view what, ErrorStyle style = ErrorStyle::kPlain);
Response database(const DbError& error, ErrorStyle style = ErrorStyle::kPlain);

}  // namespace errors
}  // namespace ca
