// Per-tenant quotas: the token bucket, the limits a tenant gets, and the
// pending-message check with its cached database state.
#include <gtest/gtest.h>

#include "broker/tenant_quotas.h"
#include "db/db_error.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;

namespace {

config::TenantQuotaConfig quota_config(std::int64_t max_pending, double rate, int burst, bool overrides = false) {
  config::TenantQuotaConfig c = config::Config::defaults().tenant_quotas;
  c.max_pending = max_pending;
  c.push_rate = rate;
  c.push_burst = burst;
  c.overrides = overrides;
  c.cache_ms = 1000;
  return c;
}

struct FakeState {
  db::TenantQuotaState state;
  int reads = 0;
  bool down = false;
  db::TenantQuotaState operator()(const Tenant&) {
    ++reads;
    if (down) throw db::DbError("connection refused", "");
    return state;
  }
};

}  // namespace

TEST(TokenBucket, StartsFullRefillsAtTheRateAndAnswersTheWait) {
  TokenBucket bucket;
  const auto t0 = TokenBucket::Clock::now();
  EXPECT_FALSE(bucket.take(10, 5, 10, t0));  // full bucket: 10 at once
  EXPECT_EQ(bucket.take(1, 5, 10, t0), std::optional<int>(1));  // empty: 1 token is 0.2 s away, rounded up
  EXPECT_FALSE(bucket.take(5, 5, 10, t0 + 1s));  // 1 s refills 5
  EXPECT_EQ(bucket.take(10, 5, 10, t0 + 1s), std::optional<int>(2));  // 10 more need 2 s
  EXPECT_FALSE(bucket.take(10, 5, 10, t0 + 60s));  // never more than the burst is saved up
  EXPECT_TRUE(bucket.take(1, 5, 10, t0 + 60s));
}

TEST(TokenBucket, ARequestLargerThanTheBucketWaitsForAFullOneThenPays) {
  TokenBucket bucket;
  const auto t0 = TokenBucket::Clock::now();
  EXPECT_FALSE(bucket.take(25, 10, 10, t0));               // a full bucket accepts it, leaving a debt of 15
  EXPECT_EQ(bucket.take(1, 10, 10, t0 + 1s), std::optional<int>(1));  // -5 after 1 s
  EXPECT_FALSE(bucket.take(1, 10, 10, t0 + 2s));
}

TEST(TenantLimits, OverridesWinAndTheBurstDefaultsToOneSecondOfRate) {
  const auto defaults = quota_config(100, 2.5, 0);
  EXPECT_EQ(tenant_limits(defaults, {}).max_pending, 100);
  EXPECT_EQ(tenant_limits(defaults, {}).push_burst, 3);
  db::TenantQuotaState overrides;
  overrides.max_pending = 0;  // unlimited for this tenant
  overrides.push_rate = 50;
  overrides.push_burst = 7;
  const TenantLimits l = tenant_limits(defaults, overrides);
  EXPECT_EQ(l.max_pending, 0);
  EXPECT_EQ(l.push_rate, 50);
  EXPECT_EQ(l.push_burst, 7);
}

TEST(TenantQuotas, OffByDefaultWithoutReadingTheDatabase) {
  FakeState fake;
  TenantQuotas quotas(config::Config::defaults().tenant_quotas, std::ref(fake));
  EXPECT_FALSE(quotas.enabled());
  EXPECT_FALSE(quotas.push_refusal(Tenant("acme"), 1000000));
  EXPECT_EQ(fake.reads, 0);
}

TEST(TenantQuotas, RateIsPerTenantAndNeedsNoDatabase) {
  FakeState fake;
  TenantQuotas quotas(quota_config(0, 1, 3), std::ref(fake));
  const auto t0 = TenantQuotas::Clock::now();
  EXPECT_FALSE(quotas.push_refusal(Tenant("acme"), 3, t0));
  const std::optional<QuotaRefusal> refused = quotas.push_refusal(Tenant("acme"), 1, t0);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->retry_after_s, 1);
  EXPECT_NE(refused->error.find("tenant acme"), std::string::npos) << refused->error;
  EXPECT_FALSE(quotas.push_refusal(Tenant("globex"), 3, t0));  // another tenant has its own bucket
  EXPECT_EQ(fake.reads, 0);
}

TEST(TenantQuotas, PendingCountsTheReconciledNumberPlusWhatThisBrokerAccepted) {
  FakeState fake;
  fake.state.pending = 7;
  fake.state.counted_at_us = 1;
  TenantQuotas quotas(quota_config(10, 0, 0), std::ref(fake));
  const auto t0 = TenantQuotas::Clock::now();
  EXPECT_FALSE(quotas.push_refusal(Tenant::default_tenant(), 3, t0));
  quotas.note_accepted(Tenant::default_tenant(), 3);
  const std::optional<QuotaRefusal> refused = quotas.push_refusal(Tenant::default_tenant(), 1, t0 + 10ms);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->error.find("default tenant"), std::string::npos) << refused->error;
  EXPECT_EQ(refused->retry_after_s, 1);
  EXPECT_EQ(fake.reads, 1);  // cached for cache_ms

  // Same count after the cache expired (the reconciler has not run): the local pushes still count.
  EXPECT_TRUE(quotas.push_refusal(Tenant::default_tenant(), 1, t0 + 2s));
  // A newer count includes them: only the database's number is left.
  fake.state.counted_at_us = 2;
  fake.state.pending = 3;
  EXPECT_FALSE(quotas.push_refusal(Tenant::default_tenant(), 7, t0 + 4s));
  EXPECT_EQ(fake.reads, 3);
}

TEST(TenantQuotas, OverridesAreReadOnlyWhenEnabledAndAFailedReadKeepsTheLastValues) {
  FakeState fake;
  fake.state.max_pending = 1;
  TenantQuotas without(quota_config(100, 0, 0, false), std::ref(fake));
  EXPECT_FALSE(without.push_refusal(Tenant("acme"), 50));  // the override is ignored

  TenantQuotas with(quota_config(100, 0, 0, true), std::ref(fake));
  const auto t0 = TenantQuotas::Clock::now();
  EXPECT_TRUE(with.push_refusal(Tenant("acme"), 2, t0));
  fake.down = true;
  EXPECT_TRUE(with.push_refusal(Tenant("acme"), 2, t0 + 2s));  // still the override of 1
  EXPECT_FALSE(with.push_refusal(Tenant("acme"), 1, t0 + 4s));
}

TEST(TenantQuotas, DeadLettersCountTheReconciledNumberPlusThisBrokersMoves) {
  FakeState fake;
  fake.state.dead_letters = 8;
  fake.state.counted_at_us = 1;
  config::TenantQuotaConfig c = quota_config(0, 0, 0);
  c.storage.dead_letters = 10;
  TenantQuotas quotas(c, std::ref(fake));
  const auto t0 = TenantQuotas::Clock::now();
  EXPECT_FALSE(quotas.push_refusal(Tenant("acme"), 1000, t0));  // the push path reads nothing for it
  EXPECT_EQ(fake.reads, 0);
  EXPECT_FALSE(quotas.dead_letter_refusal(Tenant("acme"), 2, t0));
  quotas.note_dead_lettered(Tenant("acme"), 2);
  const std::optional<QuotaRefusal> refused = quotas.dead_letter_refusal(Tenant("acme"), 1, t0 + 10ms);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->error.find("dead letters quota of tenant acme"), std::string::npos) << refused->error;
  EXPECT_NE(refused->error.find("QUEEN_TENANT_MAX_DEAD_LETTERS"), std::string::npos) << refused->error;
  EXPECT_EQ(refused->retry_after_s, kStorageQuotaRetryAfterS);
  EXPECT_EQ(fake.reads, 1);
  // The reconciler counted again (a DBA deleted dead letters): the local moves are in the count.
  fake.state.dead_letters = 3;
  fake.state.counted_at_us = 2;
  EXPECT_FALSE(quotas.dead_letter_refusal(Tenant("acme"), 7, t0 + 2s));
}

TEST(TenantQuotas, DeadLetterOverrideWinsAndZeroIsUnlimited) {
  FakeState fake;
  fake.state.dead_letters = 5;
  fake.state.max_dead_letters = 0;
  config::TenantQuotaConfig c = quota_config(0, 0, 0, true);
  c.storage.dead_letters = 1;
  TenantQuotas quotas(c, std::ref(fake));
  EXPECT_FALSE(quotas.dead_letter_refusal(Tenant("acme"), 100));
  config::TenantQuotaConfig off = quota_config(0, 0, 0);
  off.storage.dead_letters = 0;
  TenantQuotas unlimited(off, std::ref(fake));
  EXPECT_FALSE(unlimited.dead_letter_refusal(Tenant("acme"), 1000000));
  EXPECT_EQ(fake.reads, 1);  // the unlimited one never reads
}

TEST(TenantQuotas, ARefusalIsThrownAsTooManyRequestsWithItsRetryAfter) {
  EXPECT_NO_THROW(throw_if_refused(std::nullopt));
  try {
    throw_if_refused(QuotaRefusal{"push rate quota of tenant acme exceeded", 3});
    FAIL() << "a refusal must throw";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TooManyRequests);
    EXPECT_EQ(e.retry_after_s(), 3);
    EXPECT_STREQ(e.what(), "push rate quota of tenant acme exceeded");
  }
}
