#include "tenant_constant.h"

#include <cctype>

namespace ca {

std::string with_tenant_constant(std::string_view sql, int param, int64_t tenant) {
  std::string ref = "$";  // appended, not "$" + ...: GCC 12's -Wrestrict false positive at -O3
  ref += std::to_string(param);
  std::string constant = "'";
  constant += std::to_string(tenant);
  constant += "'::bigint";
  std::string out;
  out.reserve(sql.size() + 16);
  char quote = 0;  // inside '...' or "..." when set
  for (size_t i = 0; i < sql.size();) {
    char c = sql[i];
    if (quote != 0) {
      out += c;
      if (c == quote) quote = 0;  // a doubled quote leaves and re-enters: same text
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      ++i;
      continue;
    }
    if (sql.compare(i, ref.size(), ref) == 0 &&
        (i + ref.size() == sql.size() ||
         !std::isdigit(static_cast<unsigned char>(sql[i + ref.size()])))) {
      out += constant;
      i += ref.size();
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace ca
