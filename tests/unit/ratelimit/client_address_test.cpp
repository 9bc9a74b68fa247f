// TRUSTED_PROXIES parsing and the X-Forwarded-For walk, including spoofing attempts.
#include "ratelimit/client_address.hpp"

#include <string>

#include <gtest/gtest.h>

namespace cairn::ratelimit {
namespace {

TrustedProxies Proxies(std::string_view text) {
  auto parsed = TrustedProxies::Parse(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.error().message;
  return parsed.ok() ? std::move(parsed).value() : TrustedProxies();
}

bool Trusts(const TrustedProxies& proxies, std::string_view address) {
  boost::asio::ip::address parsed;
  EXPECT_TRUE(ParseAddress(address, parsed)) << address;
  return proxies.Contains(parsed);
}

TEST(TrustedProxiesTest, EmptyListTrustsNobody) {
  EXPECT_TRUE(Proxies("").empty());
  EXPECT_TRUE(Proxies(" , ,").empty());
  EXPECT_FALSE(Trusts(Proxies(""), "127.0.0.1"));
}

TEST(TrustedProxiesTest, ParsesAddressesAndRanges) {
  const TrustedProxies proxies = Proxies(" 10.0.0.1, 192.168.0.0/16 ,::1,fd00::/8,172.16.5.9/12,");
  EXPECT_FALSE(proxies.empty());
  EXPECT_TRUE(Trusts(proxies, "10.0.0.1"));
  EXPECT_FALSE(Trusts(proxies, "10.0.0.2"));
  EXPECT_TRUE(Trusts(proxies, "192.168.0.0"));
  EXPECT_TRUE(Trusts(proxies, "192.168.255.255"));
  EXPECT_FALSE(Trusts(proxies, "192.169.0.1"));
  EXPECT_TRUE(Trusts(proxies, "::1"));
  EXPECT_FALSE(Trusts(proxies, "::2"));
  EXPECT_TRUE(Trusts(proxies, "fd12:3456::1"));
  EXPECT_FALSE(Trusts(proxies, "fe80::1"));
  // Host bits in a range are ignored: 172.16.5.9/12 is 172.16.0.0/12.
  EXPECT_TRUE(Trusts(proxies, "172.31.255.1"));
  EXPECT_FALSE(Trusts(proxies, "172.32.0.1"));
}

TEST(TrustedProxiesTest, IpV4MappedEntriesAndAddressesAreIpV4) {
  const TrustedProxies proxies = Proxies("::ffff:10.0.0.0/104, ::ffff:192.0.2.7");
  EXPECT_TRUE(Trusts(proxies, "10.200.0.1"));
  EXPECT_TRUE(Trusts(proxies, "::ffff:10.200.0.1"));
  EXPECT_TRUE(Trusts(proxies, "192.0.2.7"));
  EXPECT_FALSE(Trusts(proxies, "11.0.0.1"));
  EXPECT_TRUE(Trusts(Proxies("10.0.0.0/8"), "::ffff:10.1.2.3"));
}

TEST(TrustedProxiesTest, BadEntriesAreNamed) {
  for (const std::string bad :
       {"10.0.0.256", "10.0.0.0/33", "proxy.internal", "1.2.3.4/", "/8", "::1/129", "fe80::1%eth0",
        "10.0.0.1/8/8", "1.2.3.4:80", "10.0.0.0/-1", "*"}) {
    auto parsed = TrustedProxies::Parse("10.0.0.1, " + bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kValidation);
    EXPECT_NE(parsed.error().message.find("'" + bad + "'"), std::string::npos)
        << parsed.error().message;
  }
}

TEST(ClientAddressTest, UntrustedPeerIsTheClientWhateverItSends) {
  const TrustedProxies none;
  EXPECT_EQ(none.ClientAddress("203.0.113.7", ""), "203.0.113.7");
  // Spoofing: a direct client claiming to be someone else is ignored.
  EXPECT_EQ(none.ClientAddress("203.0.113.7", "1.1.1.1"), "203.0.113.7");
  const TrustedProxies proxies = Proxies("10.0.0.0/8");
  EXPECT_EQ(proxies.ClientAddress("203.0.113.7", "1.1.1.1, 10.0.0.1"), "203.0.113.7");
}

TEST(ClientAddressTest, TrustedPeerForwardsTheRightMostUntrustedHop) {
  const TrustedProxies proxies = Proxies("10.0.0.0/8");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "203.0.113.7"), "203.0.113.7");
  // Two proxies of ours: the hop our outer proxy appended is the client.
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "203.0.113.7, 10.0.0.2"), "203.0.113.7");
  // Spoofing through the proxy: whatever the client wrote sits left of the real address.
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "1.1.1.1, 203.0.113.7"), "203.0.113.7");
  // Spoofing a trusted address does not make the walk skip the real client.
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "10.9.9.9, 203.0.113.7, 10.0.0.2"), "203.0.113.7");
}

TEST(ClientAddressTest, FallsBackToLeftMostValidHopOrPeer) {
  const TrustedProxies proxies = Proxies("10.0.0.0/8");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2"), "10.0.0.3");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", ""), "10.0.0.1");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "garbage, unknown"), "10.0.0.1");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", " , ,"), "10.0.0.1");
  // Malformed hops are skipped.
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "1.1.1.1, 203.0.113.7, not-an-ip"), "203.0.113.7");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "fe80::1%eth0"), "10.0.0.1");
}

TEST(ClientAddressTest, HopsMayCarryPortsAndBrackets) {
  const TrustedProxies proxies = Proxies("10.0.0.0/8");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "203.0.113.7:5555"), "203.0.113.7");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "[2001:db8::1]:443"), "2001:db8::1");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "[2001:db8::1]"), "2001:db8::1");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "\t2001:DB8:0:0::1 "), "2001:db8::1");
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", "[2001:db8::1]x"), "10.0.0.1");
}

TEST(ClientAddressTest, AddressesAreCanonical) {
  const TrustedProxies proxies = Proxies("::1");
  EXPECT_EQ(proxies.ClientAddress("::ffff:203.0.113.7", ""), "203.0.113.7");
  EXPECT_EQ(proxies.ClientAddress("2001:DB8:0:0:0:0:0:1", ""), "2001:db8::1");
  EXPECT_EQ(proxies.ClientAddress("::1", "::ffff:203.0.113.7"), "203.0.113.7");
  // A peer that is not an IP address (no socket in tests) is kept as it is.
  EXPECT_EQ(proxies.ClientAddress("", "203.0.113.7"), "");
  EXPECT_EQ(proxies.ClientAddress("local", ""), "local");
}

TEST(ClientAddressTest, LongHeadersStopAfterTheHopLimit) {
  const TrustedProxies proxies = Proxies("10.0.0.0/8");
  std::string header = "203.0.113.7";
  for (int i = 0; i < 1000; ++i) header += ", 10.0.0.2";
  // The real client is beyond the examined hops: the left-most examined valid hop is used.
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", header), "10.0.0.2");
  std::string garbage(16 * 1024, ',');
  EXPECT_EQ(proxies.ClientAddress("10.0.0.1", garbage), "10.0.0.1");
}

TEST(RateLimitKeyOf, IPv6IsKeyedByItsSlash64) {
  EXPECT_EQ(RateLimitKeyOf("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  EXPECT_EQ(RateLimitKeyOf("2001:db8:1:2::1"), RateLimitKeyOf("2001:db8:1:2:ffff::9"));
  EXPECT_NE(RateLimitKeyOf("2001:db8:1:2::1"), RateLimitKeyOf("2001:db8:1:3::1"));
  EXPECT_EQ(RateLimitKeyOf("::1"), "::/64");
  EXPECT_EQ(RateLimitKeyOf("203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(RateLimitKeyOf("not an address"), "not an address");
}

}  // namespace
}  // namespace cairn::ratelimit
