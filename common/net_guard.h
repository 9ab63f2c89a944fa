// Where a webhook may be sent: URL parsing and the SSRF guard.
//
// A webhook target is chosen by a tenant admin, but the request is made from
// inside our network. So a target must be an absolute http(s) URL whose host
// resolves only to public unicast addresses: loopback, private, shared
// (CGNAT), link-local (cloud metadata at 169.254.169.254 included),
// unspecified, multicast, broadcast and reserved ranges are refused, in every
// spelling (IPv4-mapped and -embedded IPv6 forms are classified by the IPv4
// address they carry). The check runs when a subscription is created and
// again on the address each delivery actually connects to, since DNS answers
// can change in between.
//
// Everything here is pure except check_url_target(), which calls
// getaddrinfo() (on a thread of its own, waited for at most kResolveLimit).
// All functions are thread-safe.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

enum class AddressClass {
  kPublic,
  kLoopback,     // 127/8, ::1
  kPrivate,      // 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10
  kLinkLocal,    // 169.254/16 (cloud metadata), fe80::/10
  kUnspecified,  // 0/8, ::
  kMulticast,    // 224/4, ff00::/8
  kReserved,     // broadcast, documentation, benchmark, 240/4, Teredo, other non-unicast
};

// "loopback", "private", ... for error messages.
const char* address_class_name(AddressClass c);

// `a` is the address in network byte order (4 or 16 bytes).
AddressClass classify_ipv4(const uint8_t a[4]);
AddressClass classify_ipv6(const uint8_t a[16]);
// AF_INET / AF_INET6; any other family is kReserved.
AddressClass classify_address(const sockaddr* addr);
// The numeric text of an AF_INET / AF_INET6 address ("127.0.0.1", "::1").
std::string address_text(const sockaddr* addr);

inline bool address_allowed(AddressClass c, bool allow_private) {
  return c == AddressClass::kPublic || allow_private;
}

inline constexpr size_t kMaxWebhookUrlLength = 2048;

struct HttpUrl {
  std::string scheme;  // "http" or "https", lower case
  std::string host;    // lower case; an IPv6 literal without its brackets
  uint16_t port = 0;   // explicit port, or the scheme's default
  bool ipv6_literal = false;
};

// Parses an absolute http(s) URL as webhook targets must be written: ASCII
// without spaces or control characters, at most kMaxWebhookUrlLength bytes,
// a host name or IP literal, an optional port 1..65535, no user
// information and no fragment. On failure returns nullopt and sets `why` to
// a sentence fragment for the validation message ("must use http or https").
std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why);

// How long check_url_target() waits for the host name's addresses.
inline constexpr std::chrono::milliseconds kResolveLimit{5000};

// Resolves `url.host` and refuses it unless every address it resolves to is
// public. Returns nullopt when the target is acceptable, otherwise why not
// (a sentence fragment such as "resolves to a loopback address (127.0.0.1)").
// A host whose addresses have not come within kResolveLimit "could not be
// resolved", as one the resolver does not know.
std::optional<std::string> check_url_target(const HttpUrl& url);

}  // namespace ca
