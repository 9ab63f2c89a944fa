// Tests for common/error.h: every error kind rendered in every ErrorStyle
// (exact status, body and headers), and the one mapping of database errors.
#include "error.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "db.h"
#include "log.h"
#include "unit_helpers.h"

namespace ca {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Expected {
  int status;
  std::string body;
  Headers headers;
};

constexpr ErrorStyle kStyles[] = {ErrorStyle::kPlain, ErrorStyle::kSuccess,
                                  ErrorStyle::kSuccess4xx};

const char* style_name(ErrorStyle style) {
  switch (style) {
    case ErrorStyle::kPlain:
      return "kPlain";
    case ErrorStyle::kSuccess:
      return "kSuccess";
    case ErrorStyle::kSuccess4xx:
      return "kSuccess4xx";
  }
  return "?";
}

// `error` renders as `plain`, `success` and `success_4xx` in the three styles.
void expect_renders(const Error& error, const Expected& plain, const Expected& success,
                    const Expected& success_4xx) {
  const Expected* expected[] = {&plain, &success, &success_4xx};
  for (int i = 0; i < 3; ++i) {
    Response r = render(error, kStyles[i]);
    EXPECT_EQ(r.status, expected[i]->status) << style_name(kStyles[i]);
    EXPECT_EQ(r.body, expected[i]->body) << style_name(kStyles[i]);
    EXPECT_EQ(r.headers, expected[i]->headers) << style_name(kStyles[i]);
  }
}

// The same answer in every style.
void expect_renders_everywhere(const Error& error, const Expected& all) {
  expect_renders(error, all, all, all);
}

TEST(RenderTest, BadRequestIsErrorInEveryStyle) {
  expect_renders_everywhere(Error::bad_request("bad \"x\""), {400, R"({"error":"bad \"x\""})", {}});
}

TEST(RenderTest, UnauthenticatedHasABearerChallengeInEveryStyle) {
  expect_renders_everywhere(
      Error::unauthenticated(),
      {401, R"({"error":"Unauthenticated"})", {{"WWW-Authenticate", "Bearer"}}});
}

TEST(RenderTest, BadCredentialsIs401WithoutAChallenge) {
  expect_renders_everywhere(Error::bad_credentials("Invalid credentials"),
                            {401, R"({"error":"Invalid credentials"})", {}});
}

TEST(RenderTest, ForbiddenIsErrorInEveryStyle) {
  expect_renders_everywhere(Error::forbidden("no"), {403, R"({"error":"no"})", {}});
}

TEST(RenderTest, NotFoundIsSuccessFalseOutsideThePlainStyle) {
  Expected success{404, R"({"success":false,"message":"Order not found"})", {}};
  expect_renders(Error::not_found("Order not found"), {404, R"({"error":"Order not found"})", {}},
                 success, success);
}

TEST(RenderTest, MethodNotAllowedListsTheAllowedMethods) {
  expect_renders_everywhere(Error::method_not_allowed("GET, POST"),
                            {405, R"({"error":"Method not allowed"})", {{"Allow", "GET, POST"}}});
}

TEST(RenderTest, ConflictIsErrorInEveryStyle) {
  expect_renders_everywhere(Error::conflict("dup"), {409, R"({"error":"dup"})", {}});
}

TEST(RenderTest, PayloadTooLargeIsErrorInEveryStyle) {
  expect_renders_everywhere(Error::payload_too_large("Request body too large"),
                            {413, R"({"error":"Request body too large"})", {}});
}

TEST(RenderTest, InvalidIsMessageAndErrorsOrSuccessFalseAndErrors) {
  FieldErrors e;
  e.add("role", "The role field is required.");
  e.add("settings.currency", "bad");
  e.add("role", "second");
  std::string errors =
      R"({"role":["The role field is required.","second"],"settings.currency":["bad"]})";
  Expected success{422, R"({"success":false,"errors":)" + errors + "}", {}};
  expect_renders(Error::invalid(e),
                 {422, R"({"message":"The given data was invalid.","errors":)" + errors + "}", {}},
                 success, success);
}

TEST(RenderTest, TooManyRequestsSaysWhenToRetry) {
  expect_renders_everywhere(Error::too_many_requests("slow down", 42),
                            {429, R"({"error":"slow down"})", {{"Retry-After", "42"}}});
}

TEST(RenderTest, ClientClosedIs499) {
  expect_renders_everywhere(Error::client_closed("Client closed the request"),
                            {499, R"({"error":"Client closed the request"})", {}});
}

TEST(RenderTest, InternalNeverShowsTheCauseAndIsSuccessFalseOnlyInTheSuccessStyle) {
  Expected plain{500, R"({"error":"Internal server error"})", {}};
  Expected success{500,
                   R"({"success":false,"message":"Internal server error",)"
                   R"("error":"The request could not be completed; nothing was saved."})",
                   {}};
  expect_renders(Error::internal("relation \"secret_table\" does not exist"), plain, success,
                 plain);
  // Never meant to be rendered; if it were, it is a 500, not a leak.
  expect_renders(Error::answered(), plain, success, plain);
}

TEST(RenderTest, InternalNamesTheRequestId) {
  log_request_begin("req-render");
  Response r = render(Error::internal("boom"), ErrorStyle::kSuccess4xx);
  log_request_end();
  EXPECT_EQ(r.body, R"({"error":"Internal server error","request_id":"req-render"})");
}

TEST(RenderTest, UnavailableIsSuccessFalseOnlyInTheSuccessStyle) {
  Expected plain{503, R"({"error":"Service temporarily unavailable"})", {{"Retry-After", "1"}}};
  Expected success{503,
                   R"({"success":false,"message":"Service temporarily unavailable"})",
                   {{"Retry-After", "1"}}};
  expect_renders(Error::unavailable("Service temporarily unavailable", 1), plain, success, plain);
}

TEST(DbErrorKindTest, SqlstatesMapToKinds) {
  expect_each<DbErrorKind>(db_error_kind, {{"23505", DbErrorKind::kUniqueViolation},
                                           {"23503", DbErrorKind::kForeignKeyViolation},
                                           {"23514", DbErrorKind::kCheckViolation},
                                           {"22P02", DbErrorKind::kBadData},
                                           {"08006", DbErrorKind::kConnection},
                                           {"57014", DbErrorKind::kTimeout},
                                           {"42P01", DbErrorKind::kOther}});
}

// The database could not serve the request, or rolled its transaction back
// whole (a deadlock's victim, a serialization failure): nothing was written
// and the same request again is safe.
TEST(DatabaseErrorTest, UnavailableOrRolledBackIsUnavailableForOneSecond) {
  for (DbError e : {DbError{DbErrorKind::kConnection, "08006", "server closed the connection", ""},
                    DbError{DbErrorKind::kTimeout, "57014", "canceling statement", ""},
                    DbError{DbErrorKind::kSerialization, "40P01", "deadlock detected", ""},
                    DbError{DbErrorKind::kSerialization, "40001", "could not serialize", ""}}) {
    Error err = Error::database(e);
    EXPECT_EQ(err.kind, ErrorKind::kUnavailable) << e.sqlstate;
    EXPECT_EQ(err.message, "Service temporarily unavailable");
    EXPECT_EQ(err.retry_after, 1);
    Response r = render(err, ErrorStyle::kSuccess);
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.body, R"({"success":false,"message":"Service temporarily unavailable"})");
  }
  EXPECT_EQ(db_error_kind("40P01"), DbErrorKind::kSerialization);
  EXPECT_EQ(db_error_kind("40001"), DbErrorKind::kSerialization);
  // A Citus shard split or move removed the shard the statement was planned
  // for (bench/move-tenant): rolled back, the same request again is served.
  EXPECT_EQ(classify_db_error("XX000", "could not find valid entry for shard 102259"),
            DbErrorKind::kSerialization);
  EXPECT_EQ(classify_db_error("XX000", "could not find valid entry for shard placement 7"),
            DbErrorKind::kSerialization);
  EXPECT_EQ(classify_db_error("XX000", "cache lookup failed for relation 42"), DbErrorKind::kOther);
  EXPECT_EQ(classify_db_error("40P01", "deadlock detected"), DbErrorKind::kSerialization);
}

TEST(DatabaseErrorTest, AnUnknownConstraintIsInternal) {
  Error err = Error::database(
      {DbErrorKind::kUniqueViolation, "23505", "duplicate key value", "users_email_key"});
  EXPECT_EQ(err.kind, ErrorKind::kInternal);
  EXPECT_EQ(err.message, "database [23505] duplicate key value");
  EXPECT_EQ(render(err, ErrorStyle::kPlain).body, R"({"error":"Internal server error"})");
  EXPECT_EQ(Error::database({DbErrorKind::kOther, "42P01", "no such relation", ""}).kind,
            ErrorKind::kInternal);
}

// Each constraint of the table, as a field error in the route's style.
TEST(DatabaseErrorTest, KnownConstraintsAreFieldErrors) {
  struct Case {
    DbError error;
    std::string errors;
  } cases[] = {
      {{DbErrorKind::kUniqueViolation, "23505", "dup", "categories_name_key"},
       R"({"name":["The name has already been taken."]})"},
      {{DbErrorKind::kForeignKeyViolation, "23503", "fk", "products_tenant_id_category_id_fkey"},
       R"({"category_id":["The selected category_id is invalid."]})"},
      {{DbErrorKind::kCheckViolation, "23514", "check", "tenants_settings_size"},
       R"({"settings":["The settings field must not be larger than 16384 bytes."]})"},
  };
  for (const Case& c : cases) {
    Error err = Error::database(c.error);
    EXPECT_EQ(err.kind, ErrorKind::kInvalid) << c.error.constraint;
    EXPECT_EQ(render(err, ErrorStyle::kPlain).body,
              R"({"message":"The given data was invalid.","errors":)" + c.errors + "}");
    EXPECT_EQ(render(err, ErrorStyle::kSuccess4xx).body,
              R"({"success":false,"errors":)" + c.errors + "}");
  }
}

TEST(DatabaseErrorTest, AConstraintOnACitusShardIsKnownByItsName) {
  Error err = Error::database(
      {DbErrorKind::kUniqueViolation, "23505", "dup", "categories_name_key_102008"});
  EXPECT_EQ(err.kind, ErrorKind::kInvalid);
  EXPECT_TRUE(err.fields.has("name"));
  // Only a numeric suffix is a shard's.
  EXPECT_EQ(
      Error::database({DbErrorKind::kUniqueViolation, "23505", "dup", "categories_name_key_x"})
          .kind,
      ErrorKind::kInternal);
}

}  // namespace
}  // namespace ca
