#include "ip_allowlist.h"

#include <arpa/inet.h>

#include <cstring>

namespace ca {
namespace {

// `text` as an address: true with `*ipv6` and `bytes` (4 or 16) set.
bool parse_address(const std::string& text, bool* ipv6, uint8_t* bytes) {
  if (inet_pton(AF_INET, text.c_str(), bytes) == 1) {
    *ipv6 = false;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
    *ipv6 = true;
    return true;
  }
  return false;
}

// "0".."max" without sign or leading zeros; -1 otherwise.
int parse_prefix(std::string_view text, int max) {
  if (text.empty() || text.size() > 3 || (text.size() > 1 && text[0] == '0')) return -1;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v <= max ? v : -1;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::optional<IpAllowlist> IpAllowlist::parse(std::string_view text, std::string* why) {
  IpAllowlist list;
  size_t at = 0;
  while (at < text.size()) {
    if (is_space(text[at])) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && !is_space(text[end])) ++end;
    std::string_view entry = text.substr(at, end - at);
    at = end;
    size_t slash = entry.find('/');
    Range range;
    if (!parse_address(std::string(entry.substr(0, slash)), &range.ipv6, range.bytes.data())) {
      // Appended, not "'" + std::string(...): GCC 12's -Wrestrict false
      // positive on that form breaks the Release build.
      why->assign(1, '\'').append(entry).append("' is not an IP address or CIDR range");
      return std::nullopt;
    }
    int max = range.ipv6 ? 128 : 32;
    range.prefix = max;
    if (slash != std::string_view::npos) {
      range.prefix = parse_prefix(entry.substr(slash + 1), max);
      if (range.prefix < 0) {
        why->assign(1, '\'').append(entry).append("' has a prefix length that is not 0 to ");
        why->append(std::to_string(max));
        return std::nullopt;
      }
    }
    list.ranges_.push_back(range);
  }
  return list;
}

bool IpAllowlist::matches(const Range& range, bool ipv6, const uint8_t* bytes) {
  if (range.ipv6 != ipv6) return false;
  int whole = range.prefix / 8;
  if (std::memcmp(range.bytes.data(), bytes, static_cast<size_t>(whole)) != 0) return false;
  int rest = range.prefix % 8;
  if (rest == 0) return true;
  auto mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (range.bytes[static_cast<size_t>(whole)] & mask) == (bytes[whole] & mask);
}

bool IpAllowlist::allows(std::string_view address) const {
  if (address.empty() || address.size() > INET6_ADDRSTRLEN) return false;
  bool ipv6 = false;
  uint8_t bytes[16] = {};
  if (!parse_address(std::string(address), &ipv6, bytes)) return false;
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket: its IPv4 rules apply.
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (ipv6 && std::memcmp(bytes, kMapped, sizeof kMapped) == 0) {
    std::memmove(bytes, bytes + 12, 4);
    ipv6 = false;
  }
  for (const Range& range : ranges_) {
    if (matches(range, ipv6, bytes)) return true;
  }
  return false;
}

}  // namespace ca
