// Address ranges and the client behind a trusted reverse proxy (server/client_address.hpp).
#include <gtest/gtest.h>

#include "server/client_address.hpp"

namespace signet {
namespace {

std::vector<Cidr> ranges(std::initializer_list<const char*> texts) {
  std::vector<Cidr> out;
  for (const char* t : texts) out.push_back(parseCidr(t).value());
  return out;
}

bool in(const char* cidr, const char* address) {
  return parseCidr(cidr).value().contains(egress::parseAddress(address).value());
}

TEST(ClientAddress, RangesHoldTheirAddressesOnly) {
  EXPECT_TRUE(in("192.168.1.0/24", "192.168.1.200"));
  EXPECT_FALSE(in("192.168.1.0/24", "192.168.2.1"));
  EXPECT_TRUE(in("0.0.0.0/0", "8.8.8.8"));
  EXPECT_FALSE(in("0.0.0.0/0", "::1"));  // an IPv4 range holds no IPv6 address
  EXPECT_TRUE(
      in("127.0.0.0/8", "::ffff:127.0.0.9"));  // IPv4-mapped, as a dual-stack socket sees it
  EXPECT_TRUE(in("2001:db8::/32", "2001:db8:ffff::1"));
  EXPECT_FALSE(in("2001:db8::/32", "2001:db9::1"));
  EXPECT_TRUE(in("::1", "::1"));
  EXPECT_FALSE(in("::1", "::2"));
  EXPECT_TRUE(in("10.0.0.7", "10.0.0.7"));
  EXPECT_TRUE(in("10.0.0.0/7", "11.255.0.1"));  // a prefix that does not end on a byte
  EXPECT_FALSE(in("10.0.0.0/7", "12.0.0.1"));
  // An IPv4-mapped network counts the prefix over the 128 bits written.
  EXPECT_TRUE(in("::ffff:10.0.0.0/104", "10.9.8.7"));
  EXPECT_FALSE(in("::ffff:10.0.0.0/104", "11.0.0.1"));
}

TEST(ClientAddress, AnythingButANetworkIsRefused) {
  for (const char* bad :
       {"", "10.0.0.0/33", "::/129", "300.1.1.1/8", "text", "10.0.0.0/", "10.0.0.0/-1",
        "10.0.0.0/8/8", "10.1.2.3/8", "[::1]/128", "10.0.0.0/ 8", "::ffff:10.0.0.0/8"})
    EXPECT_FALSE(parseCidr(bad)) << bad;
}

TEST(ClientAddress, ForwardedForIsReadOnlyFromATrustedProxyAndFromTheRight) {
  auto proxies = ranges({"127.0.0.0/8", "10.0.0.0/8"});
  // A peer that is not a proxy: what it says of others is not read.
  EXPECT_EQ(clientAddress("198.51.100.1", "203.0.113.5", proxies), "198.51.100.1");
  EXPECT_EQ(clientAddress("127.0.0.1", "203.0.113.5", {}), "127.0.0.1");
  // From a proxy: the address it appended.
  EXPECT_EQ(clientAddress("127.0.0.1", "203.0.113.5", proxies), "203.0.113.5");
  EXPECT_EQ(clientAddress("::ffff:127.0.0.1", " 2001:db8::5 ", proxies), "2001:db8::5");
  // What the client wrote itself sits to the left of what the proxy appended, and is ignored.
  EXPECT_EQ(clientAddress("127.0.0.1", "1.2.3.4, 203.0.113.5", proxies), "203.0.113.5");
  // Through two proxies: the first address that is not a proxy's, from the right.
  EXPECT_EQ(clientAddress("127.0.0.1", "203.0.113.5, 10.1.1.1", proxies), "203.0.113.5");
  // Every hop a proxy: the leftmost.
  EXPECT_EQ(clientAddress("127.0.0.1", "10.2.2.2, 10.1.1.1", proxies), "10.2.2.2");
  // An entry that is not an address: the client is unknown, never the proxy, whose address
  // would pass wherever the proxy's network is allowed.
  EXPECT_EQ(clientAddress("127.0.0.1", "garbage", proxies), kUnknownClient);
  EXPECT_EQ(clientAddress("127.0.0.1", "garbage, 10.1.1.1", proxies), kUnknownClient);
  EXPECT_EQ(clientAddress("127.0.0.1", "203.0.113.5:443", proxies), kUnknownClient);
  EXPECT_FALSE(egress::parseAddress(kUnknownClient));
  // Absent: the proxy itself.
  EXPECT_EQ(clientAddress("127.0.0.1", "", proxies), "127.0.0.1");
}

}  // namespace
}  // namespace signet
