// with_tenant_constant(): a statement's tenant parameter written into its
// text (common/tenant_constant.h).
#include "tenant_constant.h"

#include <gtest/gtest.h>

namespace ca {
namespace {

TEST(TenantConstant, EveryReferenceToTheParameterBecomesTheTypedId) {
  EXPECT_EQ(with_tenant_constant("SELECT x FROM p WHERE p.tenant_id = $1 AND p.id = $2", 1, 42),
            "SELECT x FROM p WHERE p.tenant_id = '42'::bigint AND p.id = $2");
  EXPECT_EQ(with_tenant_constant("SELECT $3::bigint, m.tenant_id = $3::bigint", 3, 7),
            "SELECT '7'::bigint::bigint, m.tenant_id = '7'::bigint::bigint");
}

TEST(TenantConstant, AParameterWhoseNumberOnlyStartsTheSameIsLeft) {
  EXPECT_EQ(with_tenant_constant("a = $1 AND b = $10 AND c = $12", 1, 5),
            "a = '5'::bigint AND b = $10 AND c = $12");
  EXPECT_EQ(with_tenant_constant("b = $10", 1, 5), "b = $10");
  EXPECT_EQ(with_tenant_constant("a = $1", 1, 5), "a = '5'::bigint");  // at the end
}

TEST(TenantConstant, QuotedTextIsNotTouched) {
  EXPECT_EQ(with_tenant_constant("SELECT '$1', \"$1\", 'it''s $1', $1", 1, 9),
            "SELECT '$1', \"$1\", 'it''s $1', '9'::bigint");
}

TEST(TenantConstant, AStatementWithoutTheParameterIsUnchanged) {
  EXPECT_EQ(with_tenant_constant("SELECT now()", 1, 9), "SELECT now()");
}

}  // namespace
}  // namespace ca
