#include "mesh/peer_sources.h"

#include <gtest/gtest.h>

#include <map>

using queen::mesh::kPeerResolveInterval;
using queen::mesh::PeerSources;
using namespace std::chrono_literals;

namespace {

// A name service the test rewrites, counting lookups.
struct FakeNames {
  std::map<std::string, std::vector<std::string>> table;
  int lookups = 0;
  PeerSources::Resolver resolver() {
    return [this](const std::string& host) {
      ++lookups;
      const auto it = table.find(host);
      return it == table.end() ? std::vector<std::string>{} : it->second;
    };
  }
};

}  // namespace

TEST(PeerSources, OnlyTheAddressesOfConfiguredPeersAreAllowed) {
  FakeNames names;
  names.table = {{"broker-b", {"10.0.0.2", "fd00::2"}}, {"127.0.0.1", {"127.0.0.1"}}};
  PeerSources sources({"broker-b", "127.0.0.1"}, names.resolver());
  const auto now = PeerSources::Clock::now();
  EXPECT_TRUE(sources.allows("10.0.0.2", now));
  EXPECT_TRUE(sources.allows("fd00::2", now));
  EXPECT_TRUE(sources.allows("127.0.0.1", now));
  EXPECT_FALSE(sources.allows("127.0.0.2", now));
  EXPECT_FALSE(sources.allows("", now));
}

TEST(PeerSources, AStrangerCannotMakeItResolveOnEveryConnect) {
  FakeNames names;
  names.table = {{"broker-b", {"10.0.0.2"}}};
  PeerSources sources({"broker-b"}, names.resolver());
  const auto start = PeerSources::Clock::now();
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(sources.allows("192.0.2.7", start + 10ms * i));
  EXPECT_EQ(names.lookups, 1);
}

TEST(PeerSources, APeerThatMovedIsLetInAfterTheResolveInterval) {
  FakeNames names;
  names.table = {{"broker-b", {"10.0.0.2"}}};
  PeerSources sources({"broker-b"}, names.resolver());
  const auto start = PeerSources::Clock::now();
  EXPECT_TRUE(sources.allows("10.0.0.2", start));
  names.table["broker-b"] = {"10.0.0.9"};  // rescheduled with a new address
  EXPECT_FALSE(sources.allows("10.0.0.9", start + kPeerResolveInterval / 2));
  EXPECT_TRUE(sources.allows("10.0.0.9", start + kPeerResolveInterval));
  EXPECT_FALSE(sources.allows("10.0.0.2", start + kPeerResolveInterval)) << "the old address is no longer a peer";
}
