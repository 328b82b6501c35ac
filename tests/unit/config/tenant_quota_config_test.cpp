// QUEEN_TENANT_*: per-tenant quota settings (docs/tenants.md).
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
