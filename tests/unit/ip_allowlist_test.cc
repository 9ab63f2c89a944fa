// METRICS_ALLOW as the handlers read it (common/ip_allowlist.h): the same
// addresses and ranges nginx's `allow` takes, matched as nginx matches them.
#include "ip_allowlist.h"

#include <gtest/gtest.h>

#include <string>

namespace ca {
namespace {

IpAllowlist parsed(const std::string& text) {
  std::string why;
  std::optional<IpAllowlist> list = IpAllowlist::parse(text, &why);
  EXPECT_TRUE(list.has_value()) << text << ": " << why;
  return list.value_or(IpAllowlist{});
}

TEST(IpAllowlist, TheDefaultAllowsLoopbackOnly) {
  IpAllowlist list = parsed("127.0.0.1 ::1");
  EXPECT_TRUE(list.allows("127.0.0.1"));
  EXPECT_TRUE(list.allows("::1"));
  EXPECT_TRUE(list.allows("0:0:0:0:0:0:0:1"));  // another spelling of ::1
  EXPECT_FALSE(list.allows("127.0.0.2"));
  EXPECT_FALSE(list.allows("10.0.0.1"));
  EXPECT_FALSE(list.allows("::2"));
  EXPECT_FALSE(list.allows("fe80::1"));
}

TEST(IpAllowlist, Ipv4RangesMatchByPrefix) {
  IpAllowlist list = parsed("10.0.0.0/8 192.168.1.0/24 172.16.0.0/12 203.0.113.7/32");
  EXPECT_TRUE(list.allows("10.0.0.0"));
  EXPECT_TRUE(list.allows("10.255.255.255"));
  EXPECT_FALSE(list.allows("11.0.0.0"));
  EXPECT_TRUE(list.allows("192.168.1.200"));
  EXPECT_FALSE(list.allows("192.168.2.1"));
  EXPECT_TRUE(list.allows("172.31.255.1"));  // /12: 172.16 to 172.31
  EXPECT_FALSE(list.allows("172.32.0.1"));
  EXPECT_FALSE(list.allows("172.15.255.255"));
  EXPECT_TRUE(list.allows("203.0.113.7"));
  EXPECT_FALSE(list.allows("203.0.113.8"));
}

TEST(IpAllowlist, Ipv6RangesMatchByPrefix) {
  IpAllowlist list = parsed("2001:db8::/32 fd00:1:2:3::/64 fe80::/10");
  EXPECT_TRUE(list.allows("2001:db8::1"));
  EXPECT_TRUE(list.allows("2001:0db8:ffff::1"));
  EXPECT_FALSE(list.allows("2001:db9::1"));
  EXPECT_TRUE(list.allows("fd00:1:2:3:ffff::1"));
  EXPECT_FALSE(list.allows("fd00:1:2:4::1"));
  EXPECT_TRUE(list.allows("febf::1"));  // /10: fe80 to febf
  EXPECT_FALSE(list.allows("fec0::1"));
}

TEST(IpAllowlist, ZeroPrefixesAllowEveryAddressOfTheirFamily) {
  IpAllowlist v4 = parsed("0.0.0.0/0");
  EXPECT_TRUE(v4.allows("8.8.8.8"));
  EXPECT_FALSE(v4.allows("2001:db8::1"));
  IpAllowlist v6 = parsed("::/0");
  EXPECT_TRUE(v6.allows("2001:db8::1"));
  EXPECT_FALSE(v6.allows("8.8.8.8"));
}

// As nginx: an IPv4 client on a dual-stack socket is matched by IPv4 rules.
TEST(IpAllowlist, AnIpv4MappedAddressMatchesItsIpv4Rules) {
  IpAllowlist list = parsed("127.0.0.1 10.0.0.0/8");
  EXPECT_TRUE(list.allows("::ffff:127.0.0.1"));
  EXPECT_TRUE(list.allows("::ffff:10.1.2.3"));
  EXPECT_FALSE(list.allows("::ffff:11.1.2.3"));
}

// nginx takes 10.1.2.3/8 as 10.0.0.0/8 (with a warning): so does the handler.
TEST(IpAllowlist, BitsBelowThePrefixAreIgnored) {
  IpAllowlist list = parsed("10.1.2.3/8 2001:db8::5/32");
  EXPECT_TRUE(list.allows("10.200.0.1"));
  EXPECT_TRUE(list.allows("2001:db8:1::1"));
}

TEST(IpAllowlist, AnythingButAnAddressIsNeverAllowed) {
  IpAllowlist list = parsed("0.0.0.0/0 ::/0");
  for (const char* address : {"", "unix:", "localhost", "127.0.0.1 ", " 127.0.0.1", "127.0.0.1\n",
                              "127.1", "1.2.3.4.5", "::1%lo", "[::1]", "127.0.0.1/32"}) {
    EXPECT_FALSE(list.allows(address)) << '"' << address << '"';
  }
  EXPECT_FALSE(list.allows(std::string(100, '1')));
}

TEST(IpAllowlist, EntriesAreSeparatedByAnyWhiteSpace) {
  IpAllowlist list = parsed("  127.0.0.1\t::1\n 10.0.0.0/8  ");
  EXPECT_TRUE(list.allows("127.0.0.1"));
  EXPECT_TRUE(list.allows("::1"));
  EXPECT_TRUE(list.allows("10.9.9.9"));
  // Nothing listed: nobody is allowed (as nginx with no allow line and `deny all`).
  EXPECT_FALSE(parsed(" ").allows("127.0.0.1"));
}

TEST(IpAllowlist, AMalformedEntryIsRefusedByName) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case& c : {
           Case{"127.0.0.1 localhost", "'localhost' is not an IP address or CIDR range"},
           Case{"10.0.0.300", "'10.0.0.300' is not an IP address or CIDR range"},
           Case{"10.0.0.0/33", "'10.0.0.0/33' has a prefix length that is not 0 to 32"},
           Case{"::/129", "'::/129' has a prefix length that is not 0 to 128"},
           Case{"10.0.0.0/", "'10.0.0.0/' has a prefix length that is not 0 to 32"},
           Case{"10.0.0.0/08", "'10.0.0.0/08' has a prefix length that is not 0 to 32"},
           Case{"10.0.0.0/-1", "'10.0.0.0/-1' has a prefix length that is not 0 to 32"},
           Case{"10.0.0.0/8/8", "'10.0.0.0/8/8' has a prefix length that is not 0 to 32"},
           Case{"all", "'all' is not an IP address or CIDR range"},
           Case{"127.0.0.1,::1", "'127.0.0.1,::1' is not an IP address or CIDR range"},
       }) {
    std::string why;
    EXPECT_FALSE(IpAllowlist::parse(c.text, &why).has_value()) << c.text;
    EXPECT_EQ(why, c.why) << c.text;
  }
}

}  // namespace
}  // namespace ca
