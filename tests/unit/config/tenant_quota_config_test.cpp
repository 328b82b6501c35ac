// QUEEN_TENANT_*: per-tenant quota settings (docs/tenants.md).
#include <algorithm>

#include <gtest/gtest.h>

#include "config/config.h"
#include "config_error.h"

using namespace queen::config;
using queen::config::testing::config_error_of;

TEST(TenantQuotaConfig, OffByDefault) {
  const TenantQuotaConfig q = load_config({}, "h").config.tenant_quotas;
  EXPECT_EQ(q.max_pending, 0);
  EXPECT_EQ(q.push_rate, 0);
  EXPECT_EQ(q.push_burst, 0);
  EXPECT_FALSE(q.overrides);
  EXPECT_EQ(q.cache_ms, 1000);
  EXPECT_FALSE(q.enabled());
}

TEST(TenantQuotaConfig, AnyQuotaOrTheOverridesTurnItOn) {
  const Config c = load_config({{"QUEEN_TENANT_MAX_PENDING", "1000"},
                                {"QUEEN_TENANT_PUSH_RATE", "12.5"},
                                {"QUEEN_TENANT_PUSH_BURST", "40"},
                                {"QUEEN_TENANT_QUOTA_CACHE_MS", "250"}},
                               "h")
                       .config;
  EXPECT_EQ(c.tenant_quotas.max_pending, 1000);
  EXPECT_EQ(c.tenant_quotas.push_rate, 12.5);
  EXPECT_EQ(c.tenant_quotas.push_burst, 40);
  EXPECT_EQ(c.tenant_quotas.cache_ms, 250);
  EXPECT_TRUE(c.tenant_quotas.enabled());
  EXPECT_TRUE(load_config({{"QUEEN_TENANT_QUOTA_OVERRIDES", "true"}}, "h").config.tenant_quotas.enabled());
  EXPECT_TRUE(load_config({{"QUEEN_TENANT_PUSH_RATE", "1"}}, "h").config.tenant_quotas.enabled());
}

TEST(TenantQuotaConfig, RejectsNegativeQuotas) {
  EXPECT_NE(config_error_of({{"QUEEN_TENANT_MAX_PENDING", "-1"}}).find("QUEEN_TENANT_MAX_PENDING"), std::string::npos);
  EXPECT_NE(config_error_of({{"QUEEN_TENANT_PUSH_RATE", "-2"}}).find("QUEEN_TENANT_PUSH_RATE"), std::string::npos);
  EXPECT_NE(config_error_of({{"QUEEN_TENANT_PUSH_BURST", "-3"}}).find("QUEEN_TENANT_PUSH_BURST"), std::string::npos);
  EXPECT_NE(config_error_of({{"QUEEN_TENANT_QUOTA_CACHE_MS", "0"}}).find("QUEEN_TENANT_QUOTA_CACHE_MS"), std::string::npos);
}

TEST(TenantQuotaConfig, StorageQuotasAreOnByDefaultAndReachEveryConnection) {
  const Config c = load_config({}, "h").config;
  const TenantStorageQuotas& s = c.tenant_quotas.storage;
  EXPECT_EQ(s.kv_keys, 100000);
  EXPECT_EQ(s.kv_bytes, 1LL << 30);
  EXPECT_EQ(s.traces, 1000000);
  EXPECT_EQ(s.trace_bytes, 1LL << 30);
  EXPECT_EQ(s.dead_letters, 1000000);
  EXPECT_EQ(s.queues, 10000);
  EXPECT_EQ(s.partitions, 1000000);
  EXPECT_EQ(s.consumer_groups, 10000);
  EXPECT_FALSE(c.tenant_quotas.enabled());  // the push path still does no quota work
  const std::vector<std::pair<std::string, std::string>> expected{
      {"queen.tenant_max_kv_keys", "100000"},    {"queen.tenant_max_kv_bytes", "1073741824"},
      {"queen.tenant_max_traces", "1000000"},    {"queen.tenant_max_trace_bytes", "1073741824"},
      {"queen.tenant_max_queues", "10000"},      {"queen.tenant_max_partitions", "1000000"},
      {"queen.tenant_max_consumer_groups", "10000"}, {"queen.tenant_max_stream_state_bytes", "1073741824"},
      {"queen.tenant_quota_overrides", "off"},     {"queen.stream_max_value_bytes", "1048576"},
      {"queen.stream_max_state_ops", "10000"},     {"queen.stream_max_push_items", "10000"},
      {"queen.stream_max_read_keys", "10000"},    {"queen.dedup_window_ms", "86400000"}};
  EXPECT_EQ(c.db.session_settings, expected);
}

TEST(TenantQuotaConfig, StorageQuotasAreReadAndZeroIsUnlimited) {
  const Config c = load_config({{"QUEEN_TENANT_MAX_KV_BYTES", "0"},
                                {"QUEEN_TENANT_MAX_TRACES", "50"},
                                {"QUEEN_TENANT_MAX_DEAD_LETTERS", "7"},
                                {"QUEEN_TENANT_QUOTA_OVERRIDES", "true"}},
                               "h")
                       .config;
  EXPECT_EQ(c.tenant_quotas.storage.kv_bytes, 0);
  EXPECT_EQ(c.tenant_quotas.storage.traces, 50);
  EXPECT_EQ(c.tenant_quotas.storage.dead_letters, 7);
  const auto& settings = c.db.session_settings;
  EXPECT_NE(std::find(settings.begin(), settings.end(), std::make_pair(std::string("queen.tenant_max_kv_bytes"),
                                                                        std::string("0"))),
            settings.end());
  EXPECT_NE(std::find(settings.begin(), settings.end(), std::make_pair(std::string("queen.tenant_quota_overrides"),
                                                                        std::string("on"))),
            settings.end());
  for (const char* name : {"QUEEN_TENANT_MAX_KV_KEYS", "QUEEN_TENANT_MAX_KV_BYTES", "QUEEN_TENANT_MAX_TRACES",
                           "QUEEN_TENANT_MAX_TRACE_BYTES", "QUEEN_TENANT_MAX_DEAD_LETTERS", "QUEEN_TENANT_MAX_QUEUES",
                           "QUEEN_TENANT_MAX_PARTITIONS", "QUEEN_TENANT_MAX_CONSUMER_GROUPS",
                           "QUEEN_TENANT_MAX_STREAM_STATE_BYTES", "QUEEN_STREAM_MAX_VALUE_BYTES",
                           "QUEEN_STREAM_MAX_STATE_OPS", "QUEEN_STREAM_MAX_PUSH_ITEMS", "QUEEN_STREAM_MAX_READ_KEYS"}) {
    EXPECT_NE(config_error_of({{name, "-1"}}).find(name), std::string::npos) << name;
  }
}
