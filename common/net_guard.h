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
// getaddrinfo() (on a thread of a ResolverPool, waited for at most
// kResolveLimit). All functions are thread-safe.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "resolver_pool.h"

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

// The ports a webhook may be sent to unless any port is allowed
// (WEBHOOK_ALLOW_ANY_PORT): the web's own two and the unprivileged range, so
// that a subscription cannot make us talk to a mail, SSH or database server
// that happens to be public. kWebhookPortRule says it in words.
inline bool webhook_port_allowed(uint32_t port, bool allow_any_port) {
  return allow_any_port || port == 80 || port == 443 || (port >= 1024 && port <= 65535);
}
inline constexpr const char* kWebhookPortRule = "port 80, 443 or 1024 to 65535";

// What a tenant is told about a refused address, at create (422) and in the
// delivery record: no address and no kind of address, since for a host name
// either would show a tenant admin what our internal DNS answers.
inline constexpr const char* kNotPublicTarget = "does not point to a public address";

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

// What check_url_target() found.
struct TargetCheck {
  enum class Verdict {
    kAllowed,  // every address the host resolves to is public
    kRefused,  // `why` says why, for the client
    kBusy,     // every resolver thread was busy: nothing was looked up; try later
  };
  Verdict verdict = Verdict::kAllowed;
  std::string why;     // kRefused: a sentence fragment that names no address
  std::string detail;  // kRefused, when an address was refused: for the log only
};

// Seconds a client is told to wait (Retry-After) when check_url_target()
// was kBusy: the lookups in the way end within about that long.
inline constexpr int64_t kResolveBusyRetryAfterSeconds = 5;

// Resolves `url.host` on `pool` and refuses it unless every address it
// resolves to is public: why as a sentence fragment for the client that
// names no address (kNotPublicTarget + "; webhook targets must be public"),
// with the operator's version in `detail` ("127.0.0.1 is a loopback
// address"). A host whose addresses have not come within kResolveLimit
// "could not be resolved", as one the resolver does not know.
TargetCheck check_url_target(const HttpUrl& url, ResolverPool& pool = process_resolver_pool());

}  // namespace ca
