#include "mesh/peers.h"

#include <gtest/gtest.h>

using namespace queen::mesh;

TEST(ParsePeers, EmptyAndBlankMeanNoPeers) {
  for (const char* text : {"", "   ", ",", " , ,, "}) {
    const auto result = parse_peers(text);
    EXPECT_TRUE(result.ok()) << text;
    EXPECT_TRUE(result.peers.empty()) << text;
  }
}

TEST(ParsePeers, HostsPortsWhitespaceAndEmptyEntries) {
  const auto result = parse_peers(" queen-b:6633 ,,10.0.0.7:7000,\tlocalhost:1 , ");
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.peers.size(), 3u);
  EXPECT_EQ(result.peers[0], (PeerAddress{"queen-b", 6633}));
  EXPECT_EQ(result.peers[1], (PeerAddress{"10.0.0.7", 7000}));
  EXPECT_EQ(result.peers[2], (PeerAddress{"localhost", 1}));
}

TEST(ParsePeers, BracketedIpv6) {
  const auto result = parse_peers("[::1]:6633,[fe80::2]:65535");
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.peers.size(), 2u);
  EXPECT_EQ(result.peers[0], (PeerAddress{"::1", 6633}));
  EXPECT_EQ(result.peers[1], (PeerAddress{"fe80::2", 65535}));
  EXPECT_EQ(result.peers[0].to_string(), "[::1]:6633");
}

TEST(ParsePeers, RefusesBadEntriesAndNamesThem) {
  for (const char* text : {"queen-b", "queen-b:", ":6633", "queen-b:0", "queen-b:65536", "queen-b:99999",
                           "queen-b:-1", "queen-b:+80", "queen-b:66a", "queen-b:6633x", "queen b:6633",
                           "queen-b: 6633", "::1:6633", "[::1]", "[::1]6633", "[::1:6633", "[]:6633",
                           "queen-b:123456", "good:1,bad"}) {
    const auto result = parse_peers(text);
    EXPECT_FALSE(result.ok()) << text;
    EXPECT_TRUE(result.peers.empty()) << text;
  }
  EXPECT_NE(parse_peers("ok:1, broken:70000").error.find("broken:70000"), std::string::npos);
}

TEST(ParsePeers, RefusesTheSamePeerTwice) {
  const auto result = parse_peers("queen-b:6633, queen-b:6633");
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.error.find("twice"), std::string::npos);
  EXPECT_TRUE(parse_peers("queen-b:6633,queen-b:6634").ok()) << "same host, other port is another peer";
}

TEST(ParsePeers, LeadingZerosInThePortAreTolerated) {
  const auto result = parse_peers("h:06633");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.peers[0].port, 6633);
  EXPECT_EQ(result.peers[0].to_string(), "h:6633");
}
