#pragma once
// Per-tenant quotas (docs/tenants.md): a push rate, enforced by a token
// bucket per tenant in this broker process, and a pending-message limit,
// checked against the tenant's pending count as the statistics reconciler
// last summed it plus what this broker accepted since. Both answer 429 with a
// Retry-After. With every push quota off (config::TenantQuotaConfig::enabled())
// push_refusal() returns at once: no lock, no database call.
//
// Storage quotas (KV, traces, queues, partitions, consumer groups) are
// enforced by the database, which refuses a statement past one with SQLSTATE
// db::kStorageQuotaExceeded (broker_error_of turns it into the same 429); the
// dead-letter quota is checked here, on DLQ moves, like the pending limit.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "broker/broker_error.h"
#include "config/config.h"
#include "db/db_error.h"
#include "db/procedures.h"
#include "tenant/tenant.h"

namespace queen::broker {

struct QuotaRefusal {
  std::string error;
  int retry_after_s = 1;  // whole seconds, >= 1
};

// Throws the refusal, if any, as BrokerError TooManyRequests (429 with its Retry-After).
void throw_if_refused(const std::optional<QuotaRefusal>& refusal);

// The limits that apply to one tenant: the broker defaults, overridden by a
// DBA's row where it sets a value. 0 = unlimited.
struct TenantLimits {
  std::int64_t max_pending = 0;
  std::int64_t max_dead_letters = 0;
  double push_rate = 0;  // messages per second
  double push_burst = 0;  // bucket size in messages (>= 1 when push_rate > 0)
};
TenantLimits tenant_limits(const config::TenantQuotaConfig& defaults, const db::TenantQuotaState& overrides);

// A token bucket: `rate` tokens per second up to `burst`. take(n) succeeds
// while at least min(n, burst) tokens are there and may leave a debt (a
// request larger than the bucket waits for a full bucket, then pays it all).
class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  // Empty: taken; else seconds until the request would fit.
  std::optional<int> take(double n, double rate, double burst, Clock::time_point now);

 private:
  bool started_ = false;  // a new bucket starts full
  double tokens_ = 0;     // negative: a debt left by a request larger than the bucket
  Clock::time_point refilled_at_{};
};

class TenantQuotas {
 public:
  using Clock = std::chrono::steady_clock;
  using ReadState = std::function<db::TenantQuotaState(const Tenant& tenant)>;

  TenantQuotas(config::TenantQuotaConfig config, ReadState read_state);

  bool enabled() const { return config_.enabled(); }
  // Why `tenant` may not push `messages` more now; empty when it may. Reads the
  // tenant's overrides and pending count at most once per cache_ms (a failed read
  // keeps the last known values: quotas never fail a push the database could take).
  std::optional<QuotaRefusal> push_refusal(const Tenant& tenant, std::size_t messages,
                                           Clock::time_point now = Clock::now());
  // Messages accepted for `tenant` (stored or spooled): counted as pending
  // until the next statistics refresh includes them.
  void note_accepted(const Tenant& tenant, std::size_t messages);

  // Why `tenant` may not move `entries` more messages to the DLQ now (empty when
  // it may): its dead letters as the statistics reconciler last counted them,
  // plus the moves this broker made since, against its dead-letter quota.
  std::optional<QuotaRefusal> dead_letter_refusal(const Tenant& tenant, std::size_t entries,
                                                  Clock::time_point now = Clock::now());
  void note_dead_lettered(const Tenant& tenant, std::size_t entries);

 private:
  struct TenantState {
    TenantLimits limits;
    TokenBucket bucket;
    std::int64_t pending_counted = 0;              // from queen.queue_stats
    std::optional<std::int64_t> counted_at_us;     // when the reconciler counted it
    std::int64_t accepted_since_count = 0;         // pushes this broker accepted since
    std::int64_t dead_letters_counted = 0;         // from queen.queue_stats
    std::int64_t dead_lettered_since_count = 0;    // DLQ moves this broker made since
    std::optional<Clock::time_point> read_at;      // last read attempt
    bool reading = false;                          // a read is in flight
  };
  // `need_state`: some quota of this check needs the database's state (an
  // override or a count); without it only the configured limits are set.
  void refresh_if_stale(const Tenant& tenant, Clock::time_point now, bool need_state);

  const config::TenantQuotaConfig config_;
  const ReadState read_state_;
  std::mutex mutex_;
  std::unordered_map<Tenant, TenantState> tenants_;
};

}  // namespace queen::broker
