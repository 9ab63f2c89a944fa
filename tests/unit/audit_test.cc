// The parameters common/audit.h passes to the audit CTE.
#include "audit.h"

#include <gtest/gtest.h>

#include "json.h"

namespace ca {
namespace {

TEST(Audit, WhoIsTheUserTheKeyAndTheRequestIdAsJson) {
  Principal session;
  session.user_id = 12;
  EXPECT_EQ(audit_who(session, "abc-1.2_Z"),
            R"({"user_id":12,"api_key_id":0,"request_id":"abc-1.2_Z"})");
  Principal keyed;
  keyed.user_id = 3;
  keyed.api_key_id = 41;
  std::string text = audit_who(keyed, "0123456789abcdef0123456789abcdef");
  Json parsed = json_parse(text);
  ASSERT_TRUE(parsed) << text;
  EXPECT_EQ(json_get_int(parsed.get(), "api_key_id").value_or(-1), 41);
  EXPECT_EQ(text,
            R"({"user_id":3,"api_key_id":41,"request_id":"0123456789abcdef0123456789abcdef"})");
}

TEST(Audit, FieldsAreATextArrayLiteral) {
  EXPECT_EQ(audit_fields({"role"}), "{role}");
  EXPECT_EQ(audit_fields({"name", "settings"}), "{name,settings}");
  EXPECT_EQ(audit_fields({}), "{}");
}

}  // namespace
}  // namespace ca
