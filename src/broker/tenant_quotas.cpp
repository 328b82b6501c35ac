#include "broker/tenant_quotas.h"

#include <algorithm>
#include <cmath>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "db/db_error.h"

namespace queen::broker {
namespace {

int whole_seconds_at_least_one(double seconds) {
  if (!(seconds < 86400.0)) return 86400;
  return std::max(1, static_cast<int>(std::ceil(seconds)));
}

std::string tenant_label(const Tenant& tenant) {
  return tenant.is_default() ? "the default tenant" : "tenant " + tenant.name();
}

}  // namespace

void throw_if_refused(const std::optional<QuotaRefusal>& refusal) {
  if (refusal) throw BrokerError(ErrorKind::TooManyRequests, refusal->error, refusal->retry_after_s);
}

TenantLimits tenant_limits(const config::TenantQuotaConfig& defaults, const db::TenantQuotaState& overrides) {
  TenantLimits limits;
  limits.max_pending = overrides.max_pending.value_or(defaults.max_pending);
  limits.max_dead_letters = overrides.max_dead_letters.value_or(defaults.storage.dead_letters);
  limits.push_rate = overrides.push_rate.value_or(defaults.push_rate);
  const int burst = overrides.push_burst.value_or(defaults.push_burst);
  // No burst given: one second's worth of the rate, at least one message.
  limits.push_burst = burst > 0 ? burst : std::max(1.0, std::ceil(limits.push_rate));
  return limits;
}

std::optional<int> TokenBucket::take(double n, double rate, double burst, Clock::time_point now) {
  if (!started_) {
    started_ = true;
    tokens_ = burst;
    refilled_at_ = now;
  }
  const double elapsed_s = std::chrono::duration<double>(now - refilled_at_).count();
  tokens_ = std::min(burst, tokens_ + std::max(0.0, elapsed_s) * rate);
  refilled_at_ = now;
  const double needed = std::min(n, burst);
  if (tokens_ >= needed) {
    tokens_ -= n;
    return std::nullopt;
  }
  return whole_seconds_at_least_one((needed - tokens_) / rate);
}

TenantQuotas::TenantQuotas(config::TenantQuotaConfig config, ReadState read_state)
    : config_(config), read_state_(std::move(read_state)) {}

void TenantQuotas::refresh_if_stale(const Tenant& tenant, Clock::time_point now, bool need_state) {
  std::unique_lock lock(mutex_);
  TenantState& t = tenants_[tenant];
  if (!need_state) {
    // Only configured limits without a count apply: nothing to read.
    if (!t.read_at) t.limits = tenant_limits(config_, {});
    return;
  }
  const bool fresh = t.read_at && now - *t.read_at < std::chrono::milliseconds(config_.cache_ms);
  if (fresh || t.reading) return;
  if (!t.read_at) t.limits = tenant_limits(config_, {});  // usable before the first read returns
  t.reading = true;
  t.read_at = now;
  lock.unlock();
  std::optional<db::TenantQuotaState> state;
  try {
    state = read_state_(tenant);
  } catch (const db::DbError& e) {
    spdlog::debug("quotas: could not read the quota state of {}: {}", tenant_label(tenant), e.what());
  }
  lock.lock();
  t.reading = false;
  if (!state) return;
  if (!config_.overrides) {
    state->max_pending.reset();
    state->push_rate.reset();
    state->push_burst.reset();
    state->max_dead_letters.reset();
  }
  t.limits = tenant_limits(config_, *state);
  // A newer count includes (about) everything accepted before it was taken.
  if (state->counted_at_us != t.counted_at_us) {
    t.accepted_since_count = 0;
    t.dead_lettered_since_count = 0;
  }
  t.pending_counted = state->pending;
  t.dead_letters_counted = state->dead_letters;
  t.counted_at_us = state->counted_at_us;
}

std::optional<QuotaRefusal> TenantQuotas::push_refusal(const Tenant& tenant, std::size_t messages,
                                                       Clock::time_point now) {
  if (!enabled() || messages == 0) return std::nullopt;
  refresh_if_stale(tenant, now, config_.overrides || config_.max_pending > 0);
  std::lock_guard lock(mutex_);
  TenantState& t = tenants_[tenant];
  const auto n = static_cast<std::int64_t>(messages);
  if (t.limits.max_pending > 0 && t.pending_counted + t.accepted_since_count + n > t.limits.max_pending) {
    return QuotaRefusal{"pending-message quota of " + tenant_label(tenant) + " reached (" +
                            std::to_string(t.limits.max_pending) + " pending messages, QUEEN_TENANT_MAX_PENDING)",
                        whole_seconds_at_least_one(config_.cache_ms / 1000.0)};
  }
  if (t.limits.push_rate > 0) {
    if (const std::optional<int> wait_s =
            t.bucket.take(static_cast<double>(n), t.limits.push_rate, t.limits.push_burst, now)) {
      return QuotaRefusal{"push rate quota of " + tenant_label(tenant) + " exceeded (" +
                              fmt::format("{}", t.limits.push_rate) + " messages per second, QUEEN_TENANT_PUSH_RATE)",
                          *wait_s};
    }
  }
  return std::nullopt;
}

void TenantQuotas::note_accepted(const Tenant& tenant, std::size_t messages) {
  if (!enabled() || messages == 0) return;
  std::lock_guard lock(mutex_);
  tenants_[tenant].accepted_since_count += static_cast<std::int64_t>(messages);
}

std::optional<QuotaRefusal> TenantQuotas::dead_letter_refusal(const Tenant& tenant, std::size_t entries,
                                                             Clock::time_point now) {
  if (entries == 0 || (config_.storage.dead_letters == 0 && !config_.overrides)) return std::nullopt;
  refresh_if_stale(tenant, now, true);
  std::lock_guard lock(mutex_);
  TenantState& t = tenants_[tenant];
  const auto n = static_cast<std::int64_t>(entries);
  if (t.limits.max_dead_letters > 0 &&
      t.dead_letters_counted + t.dead_lettered_since_count + n > t.limits.max_dead_letters) {
    return QuotaRefusal{"dead letters quota of " + tenant_label(tenant) + " reached (" +
                            std::to_string(t.limits.max_dead_letters) +
                            " dead letters, QUEEN_TENANT_MAX_DEAD_LETTERS)",
                        kStorageQuotaRetryAfterS};
  }
  return std::nullopt;
}

void TenantQuotas::note_dead_lettered(const Tenant& tenant, std::size_t entries) {
  if (entries == 0 || (config_.storage.dead_letters == 0 && !config_.overrides)) return;
  std::lock_guard lock(mutex_);
  tenants_[tenant].dead_lettered_since_count += static_cast<std::int64_t>(entries);
}

}  // namespace queen::broker
