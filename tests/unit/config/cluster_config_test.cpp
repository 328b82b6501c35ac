// The HA part of the configuration: mesh requirements, job cadences and the
// reference-server variables that are accepted and ignored.
#include <gtest/gtest.h>

#include <algorithm>

#include "config/config.h"
#include "config_error.h"

using namespace queen::config;
using queen::config::testing::config_error_of;

TEST(ClusterConfig, JobAndMeshDefaultsMatchTheSpec) {
  const Config c = load_config({}, "h").config;
  EXPECT_EQ(c.jobs.retention_interval_ms, 300000);
  EXPECT_EQ(c.jobs.retention_batch_size, 1000);
  EXPECT_EQ(c.jobs.eviction_interval_ms, 60000);
  EXPECT_EQ(c.jobs.eviction_batch_size, 1000);
  EXPECT_EQ(c.jobs.stats_reconcile_interval_ms, 60000);
  EXPECT_EQ(c.jobs.table_statistics_interval_ms, 5000);
  EXPECT_EQ(c.jobs.stats_history_retention_hours, 168);
  EXPECT_EQ(c.jobs.broker_stats_flush_interval_ms, 60000);
  EXPECT_EQ(c.mesh.heartbeat_ms, 1000);
  EXPECT_EQ(c.mesh.dead_threshold_ms, 5000);
}

TEST(ClusterConfig, ReadsJobCadencesAndMeshTimings) {
  const Config c = load_config({{"RETENTION_INTERVAL", "1000"},
                                {"RETENTION_BATCH_SIZE", "50"},
                                {"EVICTION_INTERVAL", "2000"},
                                {"EVICTION_BATCH_SIZE", "60"},
                                {"STATS_RECONCILE_INTERVAL_MS", "3000"},
                                {"TABLE_STATISTICS_INTERVAL_MS", "700"},
                                {"QUEEN_SYNC_HEARTBEAT_MS", "200"},
                                {"QUEEN_SYNC_DEAD_THRESHOLD_MS", "900"}},
                               "h")
                       .config;
  EXPECT_EQ(c.jobs.retention_interval_ms, 1000);
  EXPECT_EQ(c.jobs.retention_batch_size, 50);
  EXPECT_EQ(c.jobs.eviction_interval_ms, 2000);
  EXPECT_EQ(c.jobs.eviction_batch_size, 60);
  EXPECT_EQ(c.jobs.stats_reconcile_interval_ms, 3000);
  EXPECT_EQ(c.jobs.table_statistics_interval_ms, 700);
  EXPECT_EQ(c.mesh.heartbeat_ms, 200);
  EXPECT_EQ(c.mesh.dead_threshold_ms, 900);
}

TEST(ClusterConfig, RejectsJobCadencesOutOfRange) {
  EXPECT_NE(config_error_of({{"RETENTION_INTERVAL", "0"}}).find("RETENTION_INTERVAL"), std::string::npos);
  EXPECT_NE(config_error_of({{"EVICTION_BATCH_SIZE", "0"}}).find("EVICTION_BATCH_SIZE"), std::string::npos);
  EXPECT_NE(config_error_of({{"STATS_RECONCILE_INTERVAL_MS", "-5"}}).find("STATS_RECONCILE_INTERVAL_MS"), std::string::npos);
}

TEST(ClusterConfig, PeersWithoutASecretRefuseToBoot) {
  const std::string error = config_error_of({{"QUEEN_MESH_PORT", "6633"}, {"QUEEN_MESH_PEERS", "b:6633"}});
  EXPECT_NE(error.find("QUEEN_SYNC_SECRET"), std::string::npos) << error;
}

TEST(ClusterConfig, PeersWithoutAPortRefuseToBoot) {
  const std::string error = config_error_of({{"QUEEN_MESH_PEERS", "b:6633"}, {"QUEEN_SYNC_SECRET", "s"}});
  EXPECT_NE(error.find("QUEEN_MESH_PORT"), std::string::npos) << error;
}

TEST(ClusterConfig, DeadThresholdMustExceedTheHeartbeat) {
  const std::string error = config_error_of({{"QUEEN_MESH_PORT", "6633"},
                                      {"QUEEN_MESH_PEERS", "b:6633"},
                                      {"QUEEN_SYNC_SECRET", "s"},
                                      {"QUEEN_SYNC_HEARTBEAT_MS", "1000"},
                                      {"QUEEN_SYNC_DEAD_THRESHOLD_MS", "1000"}});
  EXPECT_NE(error.find("QUEEN_SYNC_DEAD_THRESHOLD_MS"), std::string::npos) << error;
}

TEST(ClusterConfig, NoPeersNeedsNeitherSecretNorPort) {
  EXPECT_EQ(config_error_of({{"QUEEN_MESH_PORT", "6633"}}), "");
  EXPECT_EQ(config_error_of({{"QUEEN_SYNC_SECRET", "s"}}), "");
  EXPECT_EQ(config_error_of({{"QUEEN_MESH_PEERS", " , "}}), "");
}

TEST(ClusterConfig, ReferenceOnlyVariablesAreAcceptedSilentlyAndListed) {
  const LoadedConfig loaded = load_config({{"QUEEN_UDP_PEERS", "x:1"},
                                           {"QUEEN_SYNC_ENABLED", "false"},
                                           {"QUEEN_CACHE_PARTITION_TTL_MS", "5"},
                                           {"SIDECAR_POOL_SIZE", "4"},
                                           {"QUEEN_VEGAS_ALPHA", "2"},
                                           {"QUEEN_PUSH_MAX_HOLD_MS", "20"},
                                           {"PARTITION_LOOKUP_RECONCILE_INTERVAL_MS", "9"},
                                           {"RESPONSE_BATCH_MAX", "9"},
                                           {"PORT", "7000"}},
                                          "h");
  EXPECT_TRUE(loaded.warnings.empty());
  std::vector<std::string> ignored = loaded.ignored;
  std::sort(ignored.begin(), ignored.end());
  EXPECT_EQ(ignored, (std::vector<std::string>{"PARTITION_LOOKUP_RECONCILE_INTERVAL_MS", "QUEEN_CACHE_PARTITION_TTL_MS",
                                               "QUEEN_PUSH_MAX_HOLD_MS", "QUEEN_SYNC_ENABLED", "QUEEN_UDP_PEERS",
                                               "QUEEN_VEGAS_ALPHA", "RESPONSE_BATCH_MAX", "SIDECAR_POOL_SIZE"}));
}

TEST(ClusterConfig, VariablesTheBrokerReadsAreNotListedAsIgnored) {
  const LoadedConfig loaded = load_config(
      {{"QUEEN_SYNC_HEARTBEAT_MS", "500"}, {"QUEEN_SWEEPER_MAX_SLEEP_MS", "500"}, {"QUEEN_SERVER_ID", "a"}}, "h");
  EXPECT_TRUE(loaded.ignored.empty());
}

TEST(ClusterConfig, DescribesTheJobsGroup) {
  const auto lines = describe_config(load_config({{"RETENTION_INTERVAL", "1000"}}, "h").config);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("config: jobs retention_interval_ms=1000 ", 0) == 0;
  }));
}
