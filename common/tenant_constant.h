// A statement's text with the tenant's id written into it
// (docs/decisions/0134-a-tenants-reads-prepared-with-its-id.md).
//
// On Citus, a statement whose distribution value (tenant_id) is a parameter
// is planned again on every execution: Citus keeps a plan only when the
// value is a constant of the text. A handler reading on the node that holds
// a tenant's shards (CITUS_READ_ROUTING=tenant) prepares its hottest reads
// once per tenant with the id in the text (Db::set_tenant_constant), so
// that Citus plans them once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ca {

// `sql` with every reference to parameter `$param` (not `$param` followed by
// a digit, not inside a quoted string or identifier) replaced by the typed
// constant `'<tenant>'::bigint`. The parameter stays in the statement's
// parameter list (its type given when prepared), unused.
std::string with_tenant_constant(std::string_view sql, int param, int64_t tenant);

}  // namespace ca
