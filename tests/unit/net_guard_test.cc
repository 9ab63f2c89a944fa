// The SSRF guard (common/net_guard.h): which addresses a webhook may reach,
// in every spelling, and how webhook URLs are parsed.
#include "net_guard.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>

#include "unit_helpers.h"

namespace ca {
namespace {

AddressClass v4(const char* text) {
  in_addr a{};
  EXPECT_EQ(inet_pton(AF_INET, text, &a), 1) << text;
  return classify_ipv4(reinterpret_cast<const uint8_t*>(&a));
}

AddressClass v6(const char* text) {
  in6_addr a{};
  EXPECT_EQ(inet_pton(AF_INET6, text, &a), 1) << text;
  return classify_ipv6(a.s6_addr);
}

// --- IPv4 -------------------------------------------------------------------

TEST(NetGuardTest, Ipv4LoopbackIsRefused) {
  EXPECT_EQ(v4("127.0.0.1"), AddressClass::kLoopback);
  EXPECT_EQ(v4("127.255.255.254"), AddressClass::kLoopback);
}

TEST(NetGuardTest, Ipv4PrivateRangesAreRefusedAtTheirEdges) {
  EXPECT_EQ(v4("10.0.0.0"), AddressClass::kPrivate);
  EXPECT_EQ(v4("10.255.255.255"), AddressClass::kPrivate);
  EXPECT_EQ(v4("172.16.0.1"), AddressClass::kPrivate);
  EXPECT_EQ(v4("172.31.255.255"), AddressClass::kPrivate);
  EXPECT_EQ(v4("192.168.0.1"), AddressClass::kPrivate);
  EXPECT_EQ(v4("192.168.255.255"), AddressClass::kPrivate);
  EXPECT_EQ(v4("100.64.0.1"), AddressClass::kPrivate);
  EXPECT_EQ(v4("100.127.255.255"), AddressClass::kPrivate);
  EXPECT_EQ(v4("100.100.100.200"), AddressClass::kPrivate);  // Alibaba metadata
}

TEST(NetGuardTest, Ipv4JustOutsidePrivateRangesIsPublic) {
  EXPECT_EQ(v4("9.255.255.255"), AddressClass::kPublic);
  EXPECT_EQ(v4("11.0.0.0"), AddressClass::kPublic);
  EXPECT_EQ(v4("172.15.255.255"), AddressClass::kPublic);
  EXPECT_EQ(v4("172.32.0.0"), AddressClass::kPublic);
  EXPECT_EQ(v4("192.167.255.255"), AddressClass::kPublic);
  EXPECT_EQ(v4("192.169.0.0"), AddressClass::kPublic);
  EXPECT_EQ(v4("100.63.255.255"), AddressClass::kPublic);
  EXPECT_EQ(v4("100.128.0.0"), AddressClass::kPublic);
  EXPECT_EQ(v4("169.253.255.255"), AddressClass::kPublic);
  EXPECT_EQ(v4("169.255.0.0"), AddressClass::kPublic);
  EXPECT_EQ(v4("8.8.8.8"), AddressClass::kPublic);
  EXPECT_EQ(v4("93.184.216.34"), AddressClass::kPublic);
  EXPECT_EQ(v4("223.255.255.255"), AddressClass::kPublic);
}

TEST(NetGuardTest, Ipv4LinkLocalAndCloudMetadataAreRefused) {
  EXPECT_EQ(v4("169.254.169.254"), AddressClass::kLinkLocal);
  EXPECT_EQ(v4("169.254.0.1"), AddressClass::kLinkLocal);
  EXPECT_EQ(v4("169.254.255.255"), AddressClass::kLinkLocal);
}

TEST(NetGuardTest, Ipv4UnspecifiedMulticastBroadcastAndReservedAreRefused) {
  EXPECT_EQ(v4("0.0.0.0"), AddressClass::kUnspecified);
  EXPECT_EQ(v4("0.1.2.3"), AddressClass::kUnspecified);
  EXPECT_EQ(v4("224.0.0.1"), AddressClass::kMulticast);
  EXPECT_EQ(v4("239.255.255.250"), AddressClass::kMulticast);
  EXPECT_EQ(v4("240.0.0.1"), AddressClass::kReserved);
  EXPECT_EQ(v4("255.255.255.255"), AddressClass::kReserved);
  EXPECT_EQ(v4("192.0.0.170"), AddressClass::kReserved);
  EXPECT_EQ(v4("192.0.2.1"), AddressClass::kReserved);
  EXPECT_EQ(v4("198.18.0.1"), AddressClass::kReserved);
  EXPECT_EQ(v4("198.19.255.255"), AddressClass::kReserved);
  EXPECT_EQ(v4("198.51.100.7"), AddressClass::kReserved);
  EXPECT_EQ(v4("203.0.113.9"), AddressClass::kReserved);
  EXPECT_EQ(v4("198.20.0.0"), AddressClass::kPublic);
}

// --- IPv6 -------------------------------------------------------------------

TEST(NetGuardTest, Ipv6LoopbackAndUnspecifiedAreRefused) {
  EXPECT_EQ(v6("::1"), AddressClass::kLoopback);
  EXPECT_EQ(v6("::"), AddressClass::kUnspecified);
}

TEST(NetGuardTest, Ipv6UniqueLocalLinkLocalSiteLocalAndMulticastAreRefused) {
  EXPECT_EQ(v6("fc00::1"), AddressClass::kPrivate);
  EXPECT_EQ(v6("fd12:3456:789a::1"), AddressClass::kPrivate);
  EXPECT_EQ(v6("fd00:ec2::254"), AddressClass::kPrivate);  // AWS IPv6 metadata
  EXPECT_EQ(v6("fe80::1"), AddressClass::kLinkLocal);
  EXPECT_EQ(v6("febf:ffff::1"), AddressClass::kLinkLocal);
  EXPECT_EQ(v6("fec0::1"), AddressClass::kPrivate);
  EXPECT_EQ(v6("ff02::1"), AddressClass::kMulticast);
  EXPECT_EQ(v6("ff0e::1"), AddressClass::kMulticast);
}

TEST(NetGuardTest, Ipv6FormsCarryingAnIpv4AddressAreJudgedByIt) {
  EXPECT_EQ(v6("::ffff:127.0.0.1"), AddressClass::kLoopback);
  EXPECT_EQ(v6("::ffff:7f00:1"), AddressClass::kLoopback);
  EXPECT_EQ(v6("::ffff:10.1.2.3"), AddressClass::kPrivate);
  EXPECT_EQ(v6("::ffff:169.254.169.254"), AddressClass::kLinkLocal);
  EXPECT_EQ(v6("::ffff:0.0.0.0"), AddressClass::kUnspecified);
  EXPECT_EQ(v6("::ffff:8.8.8.8"), AddressClass::kPublic);
  EXPECT_EQ(v6("::127.0.0.1"), AddressClass::kLoopback);          // IPv4-compatible
  EXPECT_EQ(v6("::ffff:0:192.168.1.1"), AddressClass::kPrivate);  // SIIT
  EXPECT_EQ(v6("64:ff9b::127.0.0.1"), AddressClass::kLoopback);   // NAT64
  EXPECT_EQ(v6("64:ff9b::8.8.8.8"), AddressClass::kPublic);       // NAT64
  EXPECT_EQ(v6("64:ff9b:1::a00:1"), AddressClass::kPrivate);      // local-use NAT64
  EXPECT_EQ(v6("2002:7f00:1::1"), AddressClass::kLoopback);       // 6to4 of 127.0.0.1
  EXPECT_EQ(v6("2002:a9fe:a9fe::1"), AddressClass::kLinkLocal);   // 6to4 of metadata
  EXPECT_EQ(v6("2002:808:808::1"), AddressClass::kPublic);        // 6to4 of 8.8.8.8
}

TEST(NetGuardTest, Ipv6OnlyGlobalUnicastIsPublic) {
  EXPECT_EQ(v6("2606:4700:4700::1111"), AddressClass::kPublic);
  EXPECT_EQ(v6("2a00:1450:4001:81c::200e"), AddressClass::kPublic);
  EXPECT_EQ(v6("2001:4860:4860::8888"), AddressClass::kPublic);
  EXPECT_EQ(v6("2001:db8::1"), AddressClass::kReserved);          // documentation
  EXPECT_EQ(v6("2001:0:4136:e378::1"), AddressClass::kReserved);  // Teredo
  EXPECT_EQ(v6("2001:2::1"), AddressClass::kReserved);            // benchmarking
  EXPECT_EQ(v6("100::1"), AddressClass::kReserved);               // discard-only
  EXPECT_EQ(v6("4000::1"), AddressClass::kReserved);              // unassigned
  EXPECT_EQ(v6("::2:1"), AddressClass::kUnspecified);  // ::0.2.0.1, compatible form of 0/8
}

TEST(NetGuardTest, SockaddrsAreClassifiedAndPrinted) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  inet_pton(AF_INET, "169.254.169.254", &in.sin_addr);
  EXPECT_EQ(classify_address(reinterpret_cast<sockaddr*>(&in)), AddressClass::kLinkLocal);
  EXPECT_EQ(address_text(reinterpret_cast<sockaddr*>(&in)), "169.254.169.254");
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
  EXPECT_EQ(classify_address(reinterpret_cast<sockaddr*>(&in6)), AddressClass::kLoopback);
  EXPECT_EQ(address_text(reinterpret_cast<sockaddr*>(&in6)), "::ffff:127.0.0.1");
  sockaddr other{};
  other.sa_family = AF_UNIX;
  EXPECT_EQ(classify_address(&other), AddressClass::kReserved);
}

TEST(NetGuardTest, OnlyPublicIsAllowedUnlessPrivateTargetsAreAllowed) {
  EXPECT_TRUE(address_allowed(AddressClass::kPublic, false));
  EXPECT_FALSE(address_allowed(AddressClass::kLoopback, false));
  EXPECT_FALSE(address_allowed(AddressClass::kReserved, false));
  EXPECT_TRUE(address_allowed(AddressClass::kLoopback, true));
}

// --- URL parsing ---------------------------------------------------------------

std::string refusal(std::string_view url) {
  std::string why;
  EXPECT_FALSE(parse_http_url(url, &why).has_value()) << url;
  return why;
}

TEST(WebhookUrlTest, HttpAndHttpsUrlsParseWithDefaultPorts) {
  std::string why;
  auto a = parse_http_url("https://hooks.example.com/in?x=1", &why);
  ASSERT_TRUE(a.has_value()) << why;
  EXPECT_EQ(a->scheme, "https");
  EXPECT_EQ(a->host, "hooks.example.com");
  EXPECT_EQ(a->port, 443);
  EXPECT_FALSE(a->ipv6_literal);
  auto b = parse_http_url("HTTP://Example.COM:8080", &why);
  ASSERT_TRUE(b.has_value()) << why;
  EXPECT_EQ(b->scheme, "http");
  EXPECT_EQ(b->host, "example.com");
  EXPECT_EQ(b->port, 8080);
  auto c = parse_http_url("http://[2001:DB8::1]:9000/x", &why);
  ASSERT_TRUE(c.has_value()) << why;
  EXPECT_EQ(c->host, "2001:db8::1");
  EXPECT_TRUE(c->ipv6_literal);
  EXPECT_EQ(c->port, 9000);
  auto d = parse_http_url("http://127.0.0.1:1/", &why);
  ASSERT_TRUE(d.has_value()) << why;
  EXPECT_EQ(d->host, "127.0.0.1");
  EXPECT_EQ(d->port, 1);
}

TEST(WebhookUrlTest, OtherSchemesAndRelativeUrlsAreRefused) {
  expect_each(refusal,
              {{"ftp://example.com/", "must use http or https"},
               {"file:///etc/passwd", "must use http or https"},
               {"gopher://example.com/", "must use http or https"},
               {"example.com/hook", "must be an absolute URL starting with http:// or https://"},
               {"/hook", "must be an absolute URL starting with http:// or https://"},
               {"://example.com", "must be an absolute URL starting with http:// or https://"},
               {"", "must be an absolute URL starting with http:// or https://"}});
}

TEST(WebhookUrlTest, MalformedHostsPortsAndPartsAreRefused) {
  expect_each(refusal,
              {{"http://", "must name a host"},
               {"http:///path", "must name a host"},
               {"http://:80/", "must name a host"},
               {"http://exa$mple.com/", "must have a valid host name"},
               {"http://.example.com/", "must have a valid host name"},
               {"http://a..b/", "must have a valid host name"},
               {"http://127.0.0.%31/", "must have a valid host name"},
               {"http://[::1/", "must have a valid IPv6 address in brackets"},
               {"http://[fe80::1%25eth0]/", "must have a valid IPv6 address in brackets"},
               {"http://[zz::1]/", "must have a valid IPv6 address in brackets"},
               {"http://example.com:0/", "must have a port from 1 to 65535"},
               {"http://example.com:65536/", "must have a port from 1 to 65535"},
               {"http://example.com:/", "must have a port from 1 to 65535"},
               {"http://example.com:8o/", "must have a port from 1 to 65535"},
               {"http://[::1]x/", "must have a port from 1 to 65535"},
               {"http://user:pw@example.com/", "must not contain a user name or password"},
               {"http://example.com@127.0.0.1/", "must not contain a user name or password"},
               {"http://example.com/#frag", "must not contain a fragment (#...)"},
               {"http://exa mple.com/",
                "must not contain spaces, control characters or non-ASCII characters"},
               {"http://example.com/\n",
                "must not contain spaces, control characters or non-ASCII characters"},
               {"http://bücher.example/",
                "must not contain spaces, control characters or non-ASCII characters"}});
}

TEST(WebhookUrlTest, LengthLimitIs2048Bytes) {
  std::string base = "https://example.com/";
  std::string ok = base + std::string(kMaxWebhookUrlLength - base.size(), 'a');
  std::string why;
  EXPECT_TRUE(parse_http_url(ok, &why).has_value()) << why;
  EXPECT_EQ(refusal(ok + "a"), "must not be longer than 2048 characters");
}

// --- resolution + classification (getaddrinfo; no network needed) ---------------

std::optional<std::string> target(const char* url, std::string* detail = nullptr) {
  std::string why;
  auto parsed = parse_http_url(url, &why);
  EXPECT_TRUE(parsed.has_value()) << url << ": " << why;
  if (!parsed) return "unparsable";
  TargetCheck checked = check_url_target(*parsed);
  EXPECT_NE(checked.verdict, TargetCheck::Verdict::kBusy) << url;
  if (detail != nullptr) *detail = checked.detail;
  if (checked.verdict == TargetCheck::Verdict::kAllowed) return std::nullopt;
  return checked.why;
}

// The refusal a client sees: the same sentence for every non-public target.
const char* const kRefused = "does not point to a public address; webhook targets must be public";

// The operator's detail of a refused target ("" when it was not refused).
std::string detail_of(const char* url) {
  std::string detail;
  target(url, &detail);
  return detail;
}

TEST(WebhookTargetTest, LoopbackPrivateAndMetadataTargetsAreRefused) {
  for (const char* url : {"http://127.0.0.1/", "http://localhost/", "http://[::1]/",
                          "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest/meta-data/",
                          "http://10.1.2.3/", "http://0.0.0.0/", "http://[fd00::1]/"}) {
    EXPECT_EQ(target(url), kRefused) << url;
  }
  EXPECT_EQ(detail_of("http://127.0.0.1/"), "127.0.0.1 resolves to 127.0.0.1, a loopback address");
  EXPECT_EQ(detail_of("http://[::ffff:127.0.0.1]/"),
            "::ffff:127.0.0.1 resolves to ::ffff:127.0.0.1, a loopback address");
  EXPECT_EQ(detail_of("http://169.254.169.254/latest/meta-data/"),
            "169.254.169.254 resolves to 169.254.169.254, a link-local address");
  EXPECT_EQ(detail_of("http://10.1.2.3/"), "10.1.2.3 resolves to 10.1.2.3, a private address");
  EXPECT_EQ(detail_of("http://0.0.0.0/"), "0.0.0.0 resolves to 0.0.0.0, an unspecified address");
  EXPECT_EQ(detail_of("http://[fd00::1]/"), "fd00::1 resolves to fd00::1, a private address");
}

// A host name's addresses never reach the client's message, whatever they
// are: what internal DNS answers stays with the operator.
TEST(WebhookTargetTest, TheRefusalOfAHostNameNamesNoAddressOrKind) {
  std::optional<std::string> refused = target("http://localhost:8080/hook");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(*refused, kRefused);
  EXPECT_EQ(refused->find("127."), std::string::npos);
  EXPECT_EQ(refused->find("::1"), std::string::npos);
  EXPECT_EQ(refused->find("loopback"), std::string::npos);
  std::string detail = detail_of("http://localhost:8080/hook");
  EXPECT_TRUE(detail == "localhost resolves to 127.0.0.1, a loopback address" ||
              detail == "localhost resolves to ::1, a loopback address")
      << detail;
}

TEST(WebhookTargetTest, OddIpv4SpellingsResolveToWhatTheyMean) {
  // inet_aton forms that libc and curl both accept: decimal, hex, short.
  EXPECT_EQ(target("http://2130706433/"), kRefused);
  EXPECT_EQ(detail_of("http://2130706433/"),
            "2130706433 resolves to 127.0.0.1, a loopback address");
  EXPECT_EQ(detail_of("http://0x7f000001/"),
            "0x7f000001 resolves to 127.0.0.1, a loopback address");
  EXPECT_EQ(detail_of("http://127.1/"), "127.1 resolves to 127.0.0.1, a loopback address");
  EXPECT_EQ(detail_of("http://0177.0.0.1/"),
            "0177.0.0.1 resolves to 127.0.0.1, a loopback address");
}

TEST(WebhookTargetTest, PublicLiteralsAreAccepted) {
  EXPECT_EQ(target("https://8.8.8.8/hook"), std::nullopt);
  EXPECT_EQ(target("https://[2606:4700:4700::1111]/hook"), std::nullopt);
}

TEST(WebhookTargetTest, UnresolvableHostsAreRefused) {
  EXPECT_EQ(target("https://no-such-host.invalid/"), "has a host that could not be resolved");
}

TEST(WebhookPortTest, OnlyTheWebPortsAndTheUnprivilegedRangeAreAllowed) {
  for (uint32_t port : {80u, 443u, 1024u, 8080u, 65535u}) {
    EXPECT_TRUE(webhook_port_allowed(port, false)) << port;
  }
  for (uint32_t port : {0u, 1u, 22u, 25u, 79u, 81u, 442u, 444u, 1023u, 65536u}) {
    EXPECT_FALSE(webhook_port_allowed(port, false)) << port;
  }
  for (uint32_t port : {1u, 22u, 25u, 1023u}) {
    EXPECT_TRUE(webhook_port_allowed(port, true)) << port;
  }
  EXPECT_STREQ(kWebhookPortRule, "port 80, 443 or 1024 to 65535");
}

}  // namespace
}  // namespace ca
