#include "net_guard.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstring>
#include <memory>

namespace ca {
namespace {

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

}  // namespace

const char* address_class_name(AddressClass c) {
  switch (c) {
    case AddressClass::kPublic:
      return "public";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kPrivate:
      return "private";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kUnspecified:
      return "unspecified";
    case AddressClass::kMulticast:
      return "multicast";
    case AddressClass::kReserved:
      return "reserved";
  }
  return "reserved";
}

AddressClass classify_ipv4(const uint8_t a[4]) {
  if (a[0] == 0) return AddressClass::kUnspecified;  // 0/8, "this network"
  if (a[0] == 127) return AddressClass::kLoopback;
  if (a[0] == 10) return AddressClass::kPrivate;
  if (a[0] == 172 && (a[1] & 0xf0) == 16) return AddressClass::kPrivate;
  if (a[0] == 192 && a[1] == 168) return AddressClass::kPrivate;
  if (a[0] == 100 && (a[1] & 0xc0) == 64) return AddressClass::kPrivate;  // shared/CGNAT
  if (a[0] == 169 && a[1] == 254) return AddressClass::kLinkLocal;        // cloud metadata
  if (a[0] >= 224 && a[0] <= 239) return AddressClass::kMulticast;
  if (a[0] >= 240) return AddressClass::kReserved;  // 240/4 and the broadcast address
  if (a[0] == 192 && a[1] == 0 && (a[2] == 0 || a[2] == 2)) return AddressClass::kReserved;
  if (a[0] == 192 && a[1] == 88 && a[2] == 99) return AddressClass::kReserved;  // 6to4 relay
  if (a[0] == 198 && (a[1] & 0xfe) == 18) return AddressClass::kReserved;       // benchmarking
  if (a[0] == 198 && a[1] == 51 && a[2] == 100) return AddressClass::kReserved;
  if (a[0] == 203 && a[1] == 0 && a[2] == 113) return AddressClass::kReserved;
  return AddressClass::kPublic;
}

AddressClass classify_ipv6(const uint8_t a[16]) {
  if (all_zero(a, 16)) return AddressClass::kUnspecified;
  if (all_zero(a, 15) && a[15] == 1) return AddressClass::kLoopback;
  // Forms that carry an IPv4 address are as dangerous as that address:
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (SIIT),
  // 64:ff9b::a.b.c.d (NAT64) and 2002:a.b.c.d::/48 (6to4).
  if (all_zero(a, 10) && a[10] == 0xff && a[11] == 0xff) return classify_ipv4(a + 12);
  if (all_zero(a, 12)) return classify_ipv4(a + 12);
  if (all_zero(a, 8) && a[8] == 0xff && a[9] == 0xff && a[10] == 0 && a[11] == 0) {
    return classify_ipv4(a + 12);
  }
  if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b) {
    if (all_zero(a + 4, 8)) return classify_ipv4(a + 12);
    if (a[4] == 0 && a[5] == 1) return AddressClass::kPrivate;  // 64:ff9b:1::/48, local NAT64
  }
  if (a[0] == 0x20 && a[1] == 0x02) return classify_ipv4(a + 2);
  if (a[0] == 0xff) return AddressClass::kMulticast;
  if ((a[0] & 0xfe) == 0xfc) return AddressClass::kPrivate;  // fc00::/7 unique local
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return AddressClass::kLinkLocal;
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) return AddressClass::kPrivate;  // site-local
  // Only 2000::/3 is global unicast; everything else is unassigned or special.
  if ((a[0] & 0xe0) != 0x20) return AddressClass::kReserved;
  // 2001::/23 (IETF protocol assignments, Teredo included) and 2001:db8::/32.
  if (a[0] == 0x20 && a[1] == 0x01 && (a[2] & 0xfe) == 0) return AddressClass::kReserved;
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) return AddressClass::kReserved;
  return AddressClass::kPublic;
}

AddressClass classify_address(const sockaddr* addr) {
  if (addr == nullptr) return AddressClass::kReserved;
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    return classify_ipv4(reinterpret_cast<const uint8_t*>(&in->sin_addr));
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    return classify_ipv6(in6->sin6_addr.s6_addr);
  }
  return AddressClass::kReserved;
}

std::string address_text(const sockaddr* addr) {
  char buf[INET6_ADDRSTRLEN] = "";
  if (addr == nullptr) return "?";
  if (addr->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, buf, sizeof buf);
  } else if (addr->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, buf, sizeof buf);
  } else {
    return "?";
  }
  return buf;
}

std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why) {
  if (text.size() > kMaxWebhookUrlLength) {
    *why = "must not be longer than " + std::to_string(kMaxWebhookUrlLength) + " characters";
    return std::nullopt;
  }
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) {
      *why = "must not contain spaces, control characters or non-ASCII characters";
      return std::nullopt;
    }
  }
  size_t sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) {
    *why = "must be an absolute URL starting with http:// or https://";
    return std::nullopt;
  }
  HttpUrl url;
  for (char c : text.substr(0, sep)) url.scheme += lower(c);
  if (url.scheme != "http" && url.scheme != "https") {
    *why = "must use http or https";
    return std::nullopt;
  }
  // A fragment is never sent over HTTP: refusing it keeps the stored URL
  // equal to what is requested.
  if (text.find('#') != std::string_view::npos) {
    *why = "must not contain a fragment (#...)";
    return std::nullopt;
  }
  std::string_view rest = text.substr(sep + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?"));
  if (authority.find('@') != std::string_view::npos) {
    *why = "must not contain a user name or password";
    return std::nullopt;
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      *why = "must have a valid IPv6 address in brackets";
      return std::nullopt;
    }
    std::string literal(authority.substr(1, close - 1));
    in6_addr ignored;
    if (inet_pton(AF_INET6, literal.c_str(), &ignored) != 1) {
      *why = "must have a valid IPv6 address in brackets";
      return std::nullopt;
    }
    for (char c : literal) url.host += lower(c);
    url.ipv6_literal = true;
    port_text = authority.substr(close + 1);
  } else {
    size_t colon = authority.find(':');
    std::string_view host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port_text = authority.substr(colon);
    for (char c : host) url.host += lower(c);
    bool ok = !url.host.empty() && url.host.size() <= 253 && url.host.front() != '.' &&
              url.host.front() != '-' && url.host.find("..") == std::string::npos;
    for (char c : url.host) ok = ok && host_char(c);
    if (!ok) {
      *why = url.host.empty() ? "must name a host" : "must have a valid host name";
      return std::nullopt;
    }
  }
  url.port = url.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    std::string_view digits = port_text.substr(1);
    bool ok = port_text.front() == ':' && !digits.empty() && digits.size() <= 5;
    uint32_t port = 0;
    for (char c : digits) {
      ok = ok && c >= '0' && c <= '9';
      port = port * 10 + static_cast<uint32_t>(c - '0');
    }
    if (!ok || port < 1 || port > 65535) {
      *why = "must have a port from 1 to 65535";
      return std::nullopt;
    }
    url.port = static_cast<uint16_t>(port);
  }
  return url;
}

TargetCheck check_url_target(const HttpUrl& url, ResolverPool& pool) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (url.ipv6_literal) hints.ai_flags = AI_NUMERICHOST;
  TargetCheck out;
  ResolverPool::Outcome found = pool.resolve(url.host, hints, kResolveLimit);
  if (found.status == ResolverPool::Status::kBusy) {
    out.verdict = TargetCheck::Verdict::kBusy;
    return out;
  }
  if (found.status == ResolverPool::Status::kTimedOut || !found.addresses) {
    out.verdict = TargetCheck::Verdict::kRefused;
    out.why = "has a host that could not be resolved";
    return out;
  }
  // Every address counts: a client could connect to any of them.
  for (const addrinfo* ai = found.addresses.get(); ai != nullptr; ai = ai->ai_next) {
    AddressClass c = classify_address(ai->ai_addr);
    if (c != AddressClass::kPublic) {
      std::string cls = address_class_name(c);
      const char* article = (cls[0] == 'u') ? "an" : "a";
      out.verdict = TargetCheck::Verdict::kRefused;
      out.why = std::string(kNotPublicTarget) + "; webhook targets must be public";
      out.detail = url.host + " resolves to " + address_text(ai->ai_addr) + ", " + article + " " +
                   cls + " address";
      return out;
    }
  }
  return out;
}

}  // namespace ca
