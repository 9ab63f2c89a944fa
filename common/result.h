// Result<T>: a value, or the HTTP error Response that ends the request.
//
// Request-level steps (authenticate, parse the body, load a row) return a
// Result; the handler either continues with the value or returns the error
// as it is. The error's status and body were decided in errors.h.
#pragma once

#include <utility>
#include <variant>

#include "http.h"

namespace ca {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Response error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  T& operator*() { return std::get<0>(v_); }
  Response& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Response> v_;
};

}  // namespace ca

// Binds `var` to the value of `expr` (a Result), or returns its error Response.
#define CA_TRY(var, expr)                                           \
  auto var##_result_ = (expr);                                      \
  if (!var##_result_.ok()) return std::move(var##_result_.error()); \
  auto& var = var##_result_.value()
