// Mapping of the configuration onto the mesh node, the sweeper and the jobs.
#include <gtest/gtest.h>

#include "broker/cluster_options.h"

using namespace queen;

namespace {

config::Config with_mesh(std::vector<std::string> peers, int port, std::string secret) {
  config::Config c = config::Config::defaults();
  c.process.server_id = "queen-a";
  c.mesh.peers = std::move(peers);
  c.mesh.port = port;
  c.mesh.sync_secret = std::move(secret);
  return c;
}

bool mentions(const std::vector<std::string>& errors, const std::string& needle) {
  for (const auto& e : errors) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(MeshOptionsFrom, MapsEveryMeshSetting) {
  config::Config c = with_mesh({"queen-b:6633", "[::1]:7000"}, 6633, "change-me");
  c.mesh.heartbeat_ms = 250;
  c.mesh.dead_threshold_ms = 1500;
  const broker::MeshOptionsResult r = broker::mesh_options_from(c);
  ASSERT_TRUE(r.ok()) << r.errors.front();
  EXPECT_EQ(r.options.server_id, "queen-a");
  EXPECT_EQ(r.options.listen_port, 6633);
  EXPECT_EQ(r.options.secret, "change-me");
  ASSERT_EQ(r.options.peers.size(), 2u);
  EXPECT_EQ(r.options.peers[0], (mesh::PeerAddress{"queen-b", 6633}));
  EXPECT_EQ(r.options.peers[1], (mesh::PeerAddress{"::1", 7000}));
  EXPECT_EQ(r.options.heartbeat_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(r.options.dead_threshold, std::chrono::milliseconds(1500));
}

TEST(MeshOptionsFrom, NoPeersIsAnIdleMeshWhateverElseIsSet) {
  const broker::MeshOptionsResult r = broker::mesh_options_from(with_mesh({}, 0, ""));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.options.peers.empty());
  EXPECT_EQ(r.options.listen_port, 0);
}

TEST(MeshOptionsFrom, PeersWithoutSecretOrPortAreRefusedNamingTheVariables) {
  const broker::MeshOptionsResult no_secret = broker::mesh_options_from(with_mesh({"b:1"}, 6633, ""));
  EXPECT_FALSE(no_secret.ok());
  EXPECT_TRUE(mentions(no_secret.errors, "QUEEN_SYNC_SECRET"));
  const broker::MeshOptionsResult no_port = broker::mesh_options_from(with_mesh({"b:1"}, 0, "s"));
  EXPECT_FALSE(no_port.ok());
  EXPECT_TRUE(mentions(no_port.errors, "QUEEN_MESH_PORT"));
}

TEST(MeshOptionsFrom, RefusesPeersTheMeshCannotDial) {
  EXPECT_TRUE(mentions(broker::mesh_options_from(with_mesh({"b:1", "b:1"}, 6633, "s")).errors, "QUEEN_MESH_PEERS"));
  EXPECT_TRUE(mentions(broker::mesh_options_from(with_mesh({"::1:7000"}, 6633, "s")).errors, "QUEEN_MESH_PEERS"));
}

TEST(MeshOptionsFrom, RefusesAServerIdTooLongForAFrame) {
  config::Config c = with_mesh({"b:1"}, 6633, "s");
  c.process.server_id = std::string(300, 'x');
  EXPECT_TRUE(mentions(broker::mesh_options_from(c).errors, "QUEEN_SERVER_ID"));
}

TEST(SweeperOptionsFrom, MapsLeaseSleepAndServer) {
  config::Config c = config::Config::defaults();
  c.process.server_id = "queen-b";
  c.sweeper.lease_ms = 3000;
  c.sweeper.max_sleep_ms = 250;
  const sweeper::SweeperOptions o = broker::sweeper_options_from(c);
  EXPECT_EQ(o.server_id, "queen-b");
  EXPECT_EQ(o.lease_ms, 3000);
  EXPECT_EQ(o.max_sleep_ms, 250);
  EXPECT_LE(o.min_sleep_ms, o.max_sleep_ms);
}

TEST(SweeperOptionsFrom, KeepsTheCoalescingFloorBelowATinyCeiling) {
  config::Config c = config::Config::defaults();
  c.process.server_id = "queen-b";
  c.sweeper.max_sleep_ms = 3;
  EXPECT_EQ(broker::sweeper_options_from(c).min_sleep_ms, 3);
}

TEST(BuiltinJobOptionsFrom, MapsCadencesBatchesAndTheDedupWindow) {
  config::Config c = config::Config::defaults();
  c.jobs.retention_interval_ms = 1000;
  c.jobs.retention_batch_size = 10;
  c.jobs.eviction_interval_ms = 2000;
  c.jobs.eviction_batch_size = 20;
  c.jobs.stats_reconcile_interval_ms = 3000;
  c.jobs.table_statistics_interval_ms = 5000;
  c.push.dedup_window_ms = 4000;
  const jobs::BuiltinJobOptions o = broker::builtin_job_options_from(c);
  EXPECT_EQ(o.retention_interval_ms, 1000);
  EXPECT_EQ(o.retention_batch, 10);
  EXPECT_EQ(o.eviction_interval_ms, 2000);
  EXPECT_EQ(o.eviction_batch, 20);
  EXPECT_EQ(o.stats_reconcile_interval_ms, 3000);
  EXPECT_EQ(o.table_statistics_interval_ms, 5000);
  EXPECT_EQ(o.dedup_window_ms, 4000);
}

TEST(JobRunnerOptionsFrom, RunsUnderThisBrokersId) {
  config::Config c = config::Config::defaults();
  c.process.server_id = "queen-c";
  EXPECT_EQ(broker::job_runner_options_from(c).server_id, "queen-c");
}

TEST(MeshOptionsFrom, TheMeshListensOnHostUnlessItHasAHostOfItsOwn) {
  config::Config c = with_mesh({"queen-b:6633"}, 6633, "change-me");
  EXPECT_EQ(broker::mesh_options_from(c).options.listen_host, "0.0.0.0");  // HOST's default
  c.http.host = "10.1.2.3";
  EXPECT_EQ(broker::mesh_options_from(c).options.listen_host, "10.1.2.3");
  c.http.host = "localhost";
  EXPECT_EQ(broker::mesh_options_from(c).options.listen_host, "127.0.0.1");
  c.mesh.host = "192.168.7.7";
  EXPECT_EQ(broker::mesh_options_from(c).options.listen_host, "192.168.7.7");
}
