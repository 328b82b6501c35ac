#include "config/config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "config_error.h"

using namespace queen::config;

namespace {

bool contains(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

}  // namespace

TEST(Config, DefaultsMatchTheSpec) {
  const LoadedConfig loaded = load_config({}, "host-a");
  const Config& c = loaded.config;
  EXPECT_TRUE(loaded.warnings.empty());
  EXPECT_EQ(c.http.port, 6632);
  EXPECT_EQ(c.http.host, "0.0.0.0");
  EXPECT_EQ(c.http.max_body_bytes, 64LL * 1024 * 1024);
  EXPECT_EQ(c.http.min_threads, 10);
  EXPECT_EQ(c.http.max_threads, 64);  // handler threads; parked long polls hold none
  EXPECT_EQ(c.http.max_queued, 20000);
  EXPECT_EQ(c.http.max_connections, 20000);
  EXPECT_EQ(c.http.max_header_bytes, 16384);
  EXPECT_EQ(c.http.max_header_count, 100);
  EXPECT_EQ(c.http.max_url_bytes, 8192);
  EXPECT_EQ(c.http.max_query_params, 64);
  EXPECT_EQ(c.http.header_timeout_ms, 10000);
  EXPECT_EQ(c.http.body_timeout_ms, 60000);
  EXPECT_EQ(c.http.write_timeout_ms, 30000);
  EXPECT_EQ(c.pop.wait_recheck_budget_per_s, 500);
  EXPECT_EQ(c.process.server_id, "host-a");
  EXPECT_EQ(c.process.log_level, "info");
  EXPECT_EQ(c.db.hosts, (std::vector<std::string>{"localhost"}));
  EXPECT_EQ(c.db.ports, (std::vector<int>{5432}));
  EXPECT_EQ(c.db.pool_size, 25);  // three brokers fit max_connections=100
  EXPECT_EQ(c.db.connection_timeout_ms, 2000);
  EXPECT_EQ(c.db.statement_timeout_ms, 30000);
  EXPECT_EQ(c.db.lock_timeout_ms, 10000);
  EXPECT_EQ(c.db.tcp_user_timeout_ms, 30000);
  EXPECT_EQ(c.db.keepalives_idle_s, 60);
  EXPECT_EQ(c.db.keepalives_interval_s, 10);
  EXPECT_EQ(c.db.keepalives_count, 3);
  EXPECT_EQ(c.pop.default_timeout_ms, 30000);
  EXPECT_EQ(c.pop.default_batch_size, 1);
  EXPECT_EQ(c.pop.default_subscription_mode, "");
  EXPECT_EQ(c.pop.wait_initial_interval_ms, 100);
  EXPECT_EQ(c.pop.wait_backoff_threshold, 3);
  EXPECT_DOUBLE_EQ(c.pop.wait_backoff_multiplier, 2.0);
  EXPECT_EQ(c.pop.wait_max_interval_ms, 1000);
  EXPECT_EQ(c.push.dedup_window_ms, 86400000);
  EXPECT_EQ(c.spool.dir, "/var/lib/queen/buffers");
  EXPECT_EQ(c.spool.flush_ms, 100);
  EXPECT_EQ(c.spool.max_batch, 100);
  EXPECT_EQ(c.spool.events_per_file, 10000);
  EXPECT_EQ(c.spool.fsync, FsyncMode::Off);
  EXPECT_EQ(c.spool.replay_lanes, 4);
  EXPECT_EQ(c.mesh.port, 0);
  EXPECT_TRUE(c.mesh.peers.empty());
  EXPECT_EQ(c.sweeper.lease_ms, 30000);
  EXPECT_EQ(c.sweeper.max_sleep_ms, 1000);
}

TEST(Config, ReadsEveryGroup) {
  const EnvMap env{{"PORT", "7000"},
                   {"HOST", "127.0.0.1"},
                   {"QUEEN_SERVER_ID", "queen-a"},
                   {"PG_HOST", "db"},
                   {"PG_PORT", "55432"},
                   {"PG_DB", "queen"},
                   {"PG_PASSWORD", "s3cret"},
                   {"PG_USE_SSL", "true"},
                   {"DB_POOL_SIZE", "20"},
                   {"POP_WAIT_BACKOFF_MULTIPLIER", "1.5"},
                   {"DEFAULT_SUBSCRIPTION_MODE", "new"},
                   {"PUSH_COMBINE_MAX_ITEMS", "500"},
                   {"PUSH_MAX_CONCURRENT_CALLS", "3"},
                   {"FILE_BUFFER_FSYNC", "batch"},
                   {"FILE_BUFFER_DIR", "/tmp/spool"},
                   {"QUEEN_MESH_PORT", "6700"},
                   {"QUEEN_MESH_PEERS", " b:6700, c:6701 ,"},
                   {"QUEEN_SYNC_SECRET", "shh"}};
  const Config c = load_config(env, "ignored").config;
  EXPECT_EQ(c.http.port, 7000);
  EXPECT_EQ(c.http.host, "127.0.0.1");
  EXPECT_EQ(c.process.server_id, "queen-a");
  EXPECT_EQ(c.db.hosts, (std::vector<std::string>{"db"}));
  EXPECT_EQ(c.db.ports, (std::vector<int>{55432}));
  EXPECT_EQ(c.db.name, "queen");
  EXPECT_EQ(c.db.password, "s3cret");
  EXPECT_TRUE(c.db.use_ssl);
  EXPECT_EQ(c.db.pool_size, 20);
  EXPECT_DOUBLE_EQ(c.pop.wait_backoff_multiplier, 1.5);
  EXPECT_EQ(c.pop.default_subscription_mode, "new");
  EXPECT_EQ(c.push.combine_max_items, 500);
  EXPECT_EQ(c.push.max_concurrent_calls, 3);
  EXPECT_EQ(c.spool.fsync, FsyncMode::Batch);
  EXPECT_EQ(c.spool.dir, "/tmp/spool");
  EXPECT_EQ(c.mesh.port, 6700);
  EXPECT_EQ(c.mesh.peers, (std::vector<std::string>{"b:6700", "c:6701"}));
  EXPECT_EQ(c.mesh.sync_secret, "shh");
}

TEST(Config, UnparsableIntegersAreBootErrorsReportedTogether) {
  const LoadedConfig loaded = read_config({{"PORT", "http"}, {"DB_POOL_SIZE", "12abc"}}, "h");
  ASSERT_EQ(loaded.errors.size(), 2u);
  EXPECT_TRUE(contains(loaded.errors, "PORT='http' is not an integer"));
  EXPECT_TRUE(contains(loaded.errors, "DB_POOL_SIZE='12abc' is not an integer"));
  EXPECT_TRUE(loaded.warnings.empty());
  EXPECT_THROW(load_config({{"PORT", "http"}}, "h"), ConfigError);
}

TEST(Config, EmptyValueMeansUnset) {
  const LoadedConfig loaded = load_config({{"PORT", ""}, {"PG_HOST", ""}}, "h");
  EXPECT_EQ(loaded.config.http.port, 6632);
  EXPECT_EQ(loaded.config.db.hosts, (std::vector<std::string>{"localhost"}));
  EXPECT_TRUE(loaded.warnings.empty());
}

TEST(Config, OutOfRangeIsABootErrorNamingEveryBadVariable) {
  try {
    load_config({{"PORT", "70000"}, {"DB_POOL_SIZE", "0"}, {"LOG_LEVEL", "chatty"}}, "h");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("PORT=70000"), std::string::npos);
    EXPECT_NE(message.find("DB_POOL_SIZE=0"), std::string::npos);
    EXPECT_NE(message.find("LOG_LEVEL='chatty'"), std::string::npos);
  }
}

TEST(Config, ReplayLanesAreBoundedFromOneToSixtyFour) {
  EXPECT_EQ(load_config({{"FILE_BUFFER_REPLAY_LANES", "1"}}, "h").config.spool.replay_lanes, 1);
  EXPECT_EQ(load_config({{"FILE_BUFFER_REPLAY_LANES", "64"}}, "h").config.spool.replay_lanes, 64);
  EXPECT_THROW(load_config({{"FILE_BUFFER_REPLAY_LANES", "0"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"FILE_BUFFER_REPLAY_LANES", "65"}}, "h"), ConfigError);
}

TEST(Config, CallByteBoundsDefaultToSixteenMebibytesWithinSixtyFourKibibytesAndOneHundredTwentyEightMebibytes) {
  const Config defaults = load_config({}, "h").config;
  EXPECT_EQ(defaults.spool.max_batch_bytes, 16LL << 20);
  EXPECT_EQ(defaults.push.combine_max_bytes, 16LL << 20);
  EXPECT_EQ(defaults.combine.ack_max_bytes, 16LL << 20);
  EXPECT_EQ(defaults.spool.poison_attempts, 5);
  for (const char* name : {"FILE_BUFFER_MAX_BATCH_BYTES", "PUSH_COMBINE_MAX_BYTES", "ACK_COMBINE_MAX_BYTES"}) {
    EXPECT_NO_THROW(load_config({{name, "65536"}}, "h")) << name;
    EXPECT_NO_THROW(load_config({{name, "134217728"}}, "h")) << name;
    EXPECT_THROW(load_config({{name, "65535"}}, "h"), ConfigError) << name;
    EXPECT_THROW(load_config({{name, "134217729"}}, "h"), ConfigError) << name;
  }
  EXPECT_EQ(load_config({{"FILE_BUFFER_MAX_BATCH_BYTES", "1048576"}}, "h").config.spool.max_batch_bytes, 1 << 20);
  EXPECT_EQ(load_config({{"FILE_BUFFER_POISON_ATTEMPTS", "1"}}, "h").config.spool.poison_attempts, 1);
  EXPECT_THROW(load_config({{"FILE_BUFFER_POISON_ATTEMPTS", "0"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"FILE_BUFFER_POISON_ATTEMPTS", "1001"}}, "h"), ConfigError);
}

TEST(Config, InvalidEnumsAndPeersAreBootErrors) {
  EXPECT_THROW(load_config({{"FILE_BUFFER_FSYNC", "always"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"NUM_WORKERS", "64"}, {"HTTP_MAX_THREADS", "32"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"QUEEN_MESH_PEERS", "b"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"QUEEN_MESH_PEERS", "b:99999"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"POP_WAIT_BACKOFF_MULTIPLIER", "0.5"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"POP_WAIT_INITIAL_INTERVAL_MS", "500"}, {"POP_WAIT_MAX_INTERVAL_MS", "100"}}, "h"),
               ConfigError);
}

TEST(Config, BooleansAcceptTrueFalseOneAndZeroOnly) {
  EXPECT_TRUE(load_config({{"PG_USE_SSL", "1"}}, "h").config.db.use_ssl);
  EXPECT_FALSE(load_config({{"PG_USE_SSL", "false"}}, "h").config.db.use_ssl);
  EXPECT_THROW(load_config({{"PG_USE_SSL", "maybe"}}, "h"), ConfigError);
}

TEST(Config, DescribeHasOneLinePerGroupAndMasksSecrets) {
  Config c = load_config({{"PG_PASSWORD", "hunter2"}, {"QUEEN_SYNC_SECRET", "mesh-secret"},
                          {"QUEEN_ENCRYPTION_KEY", std::string(64, 'a')},
                          {"QUEEN_ENCRYPTION_KEY_PREVIOUS", std::string(64, 'b')}},
                         "h")
                 .config;
  EXPECT_EQ(c.encryption_key_previous, std::string(64, 'b'));
  const std::vector<std::string> lines = describe_config(c);
  for (const char* group : {"config: http ", "config: db ", "config: pop ", "config: push ", "config: spool ",
                            "config: mesh ", "config: process "}) {
    EXPECT_TRUE(contains(lines, group)) << group;
  }
  for (const auto& line : lines) {
    EXPECT_EQ(line.find("hunter2"), std::string::npos) << line;
    EXPECT_EQ(line.find("mesh-secret"), std::string::npos) << line;
    EXPECT_EQ(line.find(std::string(64, 'a')), std::string::npos) << line;
    EXPECT_EQ(line.find(std::string(64, 'b')), std::string::npos) << line;
  }
  EXPECT_TRUE(contains(lines, "encryption_key_previous=***"));
  EXPECT_TRUE(contains(lines, "password=***"));
  EXPECT_TRUE(contains(lines, "sync_secret=***"));
}

TEST(Config, AckAndPopCombiningLimits) {
  const Config defaults = load_config({}, "h").config;
  EXPECT_EQ(defaults.combine.ack_max_items, 100);
  EXPECT_EQ(defaults.combine.ack_max_concurrent_calls, 4);
  EXPECT_EQ(defaults.combine.pop_max_messages, 100);
  EXPECT_EQ(defaults.push.max_concurrent_calls, 2);
  EXPECT_EQ(defaults.combine.pop_max_concurrent_calls, 4);
  const Config c = load_config({{"ACK_COMBINE_MAX_ITEMS", "50"},
                                {"ACK_MAX_CONCURRENT_CALLS", "2"},
                                {"POP_COMBINE_MAX_MESSAGES", "1000"},
                                {"POP_MAX_CONCURRENT_CALLS", "1"}},
                               "h")
                       .config;
  EXPECT_EQ(c.combine.ack_max_items, 50);
  EXPECT_EQ(c.combine.ack_max_concurrent_calls, 2);
  EXPECT_EQ(c.combine.pop_max_messages, 1000);
  EXPECT_EQ(c.combine.pop_max_concurrent_calls, 1);
  // queen.pop_many takes at most 1000 requests per call
  EXPECT_THROW(load_config({{"POP_COMBINE_MAX_MESSAGES", "1001"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"ACK_MAX_CONCURRENT_CALLS", "0"}}, "h"), ConfigError);
}

TEST(Config, BodyBytesInFlightAtLeastOneLargestBody) {
  EXPECT_EQ(load_config({}, "h").config.http.max_body_bytes_in_flight, 256LL << 20);
  // Raising MAX_BODY_BYTES alone raises the default budget with it.
  EXPECT_EQ(load_config({{"MAX_BODY_BYTES", std::to_string(512LL << 20)}}, "h").config.http.max_body_bytes_in_flight,
            512LL << 20);
  EXPECT_EQ(load_config({{"HTTP_MAX_BODY_BYTES_IN_FLIGHT", "1073741824"}}, "h").config.http.max_body_bytes_in_flight,
            1LL << 30);
  EXPECT_NE(queen::config::testing::config_error_of({{"HTTP_MAX_BODY_BYTES_IN_FLIGHT", "1048576"}})
                .find("HTTP_MAX_BODY_BYTES_IN_FLIGHT (1048576) must be >= MAX_BODY_BYTES (67108864): one largest body "
                      "must fit"),
            std::string::npos);
}

TEST(Config, CorsOriginsAreExactOriginsOrAStarAlone) {
  EXPECT_TRUE(load_config({}, "h").config.http.cors_origins.empty());
  const auto origins =
      load_config({{"HTTP_CORS_ORIGINS", "https://ops.example.com, http://127.0.0.1:5173"}}, "h").config.http.cors_origins;
  EXPECT_EQ(origins, (std::vector<std::string>{"https://ops.example.com", "http://127.0.0.1:5173"}));
  EXPECT_EQ(load_config({{"HTTP_CORS_ORIGINS", "*"}}, "h").config.http.cors_origins, (std::vector<std::string>{"*"}));
  for (const char* bad : {"https://ops.example.com/", "ops.example.com", "ftp://x", "https://", "*,https://a.b",
                          "https://a.b?x"}) {
    const std::string error = queen::config::testing::config_error_of({{"HTTP_CORS_ORIGINS", bad}});
    EXPECT_NE(error.find("HTTP_CORS_ORIGINS entry"), std::string::npos) << bad << ": " << error;
  }
}
