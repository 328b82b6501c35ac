#include "mesh/mesh_options.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/table_default.h"

using namespace queen::mesh;

namespace {

MeshOptions with_peer() {
  MeshOptions o;
  o.server_id = "queen-a";
  o.listen_port = 6633;
  o.peers = {PeerAddress{"queen-b", 6633}};
  o.secret = "change-me";
  return o;
}

bool mentions(const std::vector<std::string>& errors, const std::string& word) {
  return std::any_of(errors.begin(), errors.end(), [&](const auto& e) { return e.find(word) != std::string::npos; });
}

}  // namespace

TEST(ValidateMeshOptions, NoPeersNeedsNothing) {
  MeshOptions o;  // no id, no secret, no port: the mesh is simply off
  EXPECT_TRUE(validate_options(o).empty());
}

TEST(ValidateMeshOptions, DefaultsWithPeerAndSecretAreValid) { EXPECT_TRUE(validate_options(with_peer()).empty()); }

TEST(ValidateMeshOptions, PeersWithoutASecretAreRefused) {
  auto o = with_peer();
  o.secret.clear();
  const auto errors = validate_options(o);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(mentions(errors, "QUEEN_SYNC_SECRET"));
}

TEST(ValidateMeshOptions, PeersWithoutAServerIdAreRefused) {
  auto o = with_peer();
  o.server_id.clear();
  EXPECT_TRUE(mentions(validate_options(o), "QUEEN_SERVER_ID"));
  o.server_id = std::string(256, 'x');
  EXPECT_TRUE(mentions(validate_options(o), "QUEEN_SERVER_ID"));
}

TEST(ValidateMeshOptions, DeadThresholdMustExceedTheHeartbeat) {
  auto o = with_peer();
  o.dead_threshold = o.heartbeat_interval;
  EXPECT_TRUE(mentions(validate_options(o), "QUEEN_SYNC_DEAD_THRESHOLD_MS"));
}

TEST(ValidateMeshOptions, BoundsMustBeUsable) {
  auto o = with_peer();
  o.send_queue_max_frames = 0;
  o.send_queue_max_bytes = 100;  // below one maximum-size frame
  o.reconnect_backoff_min = std::chrono::milliseconds(500);
  o.reconnect_backoff_max = std::chrono::milliseconds(100);
  o.max_inbound_connections = 0;
  o.max_tracked_senders = 0;
  o.write_timeout = std::chrono::milliseconds(0);
  EXPECT_EQ(validate_options(o).size(), 6u);
}

TEST(MeshOptions, DefaultsAreTheVariableTables) {
  const MeshOptions options;
  EXPECT_EQ(options.listen_host, queen::test::table_default_text("HOST"));
  EXPECT_EQ(options.heartbeat_interval.count(), queen::test::table_default("QUEEN_SYNC_HEARTBEAT_MS"));
  EXPECT_EQ(options.dead_threshold.count(), queen::test::table_default("QUEEN_SYNC_DEAD_THRESHOLD_MS"));
}
