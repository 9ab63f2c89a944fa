// Result<T>: a value, or the Error (common/error.h) that ends the request.
//
// Request-level steps (authenticate, parse the body, load a row) return a
// Result; the handler either continues with the value or returns the error
// as it is. A handler returns Result<Response>; the dispatcher renders an
// error in the route's style (error.h), so no step below picks a body.
#pragma once

#include <utility>
#include <variant>

#include "error.h"

namespace ca {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  T& operator*() { return std::get<0>(v_); }
  Error& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace ca

// Binds `var` to the value of `expr` (a Result), or returns its Error.
#define CA_TRY(var, expr)                                           \
  auto var##_result_ = (expr);                                      \
  if (!var##_result_.ok()) return std::move(var##_result_.error()); \
  auto& var = var##_result_.value()
