// A list of IP addresses and CIDR ranges an operator allows (METRICS_ALLOW),
// matched against a request's REMOTE_ADDR as nginx's `allow` does: IPv4 and
// IPv6, and an IPv4-mapped IPv6 client (::ffff:127.0.0.1) matched by its
// IPv4 address.
//
// Parsed once at start-up, read-only afterwards: threads share it freely.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ca {

class IpAllowlist {
 public:
  // Addresses or ranges separated by white space ("127.0.0.1 ::1
  // 10.0.0.0/8"). Bits below the prefix are ignored, as nginx does. nullopt,
  // with `why` naming the entry, when one is not an address or range.
  static std::optional<IpAllowlist> parse(std::string_view text, std::string* why);

  // True when `address` (an IPv4 or IPv6 literal) is in one of the ranges;
  // false for anything else, such as an empty or "unix:" address.
  bool allows(std::string_view address) const;

 private:
  struct Range {
    bool ipv6 = false;
    std::array<uint8_t, 16> bytes{};  // the first 4 for IPv4
    int prefix = 0;                   // bits that must match
  };
  static bool matches(const Range& range, bool ipv6, const uint8_t* bytes);

  std::vector<Range> ranges_;
};

}  // namespace ca
