#pragma once
// The sweeper: on every broker, fires due timers and prunes expired KV rows.
//
// It elects nothing. Brokers share the work through the database: a claim takes
// due timer rows with FOR UPDATE ... SKIP LOCKED under a claim lease
// (QUEEN_SWEEPER_LEASE_MS), then one transaction fires the claimed rows. A
// broker that dies or is stopped while holding claims does not hand them back:
// the rows become claimable again when the lease expires, so the bounded cost
// of a stop is up to one lease of extra latency for those timers, and nothing
// is lost or delivered twice because their fire never committed.
//
// Between passes it sleeps until the next due timer, never longer than
// QUEEN_SWEEPER_MAX_SLEEP_MS; wake() (a timer scheduled on this broker) cuts
// the sleep short. There is deliberately no cross-broker wake.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "sweeper/sleep_policy.h"
#include "util/background_worker.h"

namespace queen::sweeper {

// The database calls the sweeper makes; an interface so the loop is testable
// without a database. Implementations throw on failure.
class SweeperStore {
 public:
  virtual ~SweeperStore() = default;
  // Claims up to `limit` due timers for `server_id` for `lease_ms`; their ids.
  virtual std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms) = 0;
  // Fires the claimed timers still held by `server_id`; how many completed.
  virtual int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) = 0;
  // Milliseconds until the next timer becomes claimable (database clock);
  // empty when there are no timers.
  virtual std::optional<std::int64_t> ms_until_next_timer() = 0;
  // Deletes at most `limit` expired KV rows; how many.
  virtual int prune_expired_kv(int limit) = 0;
};

// lease_ms and max_sleep_ms default to the configuration's (config::SweeperConfig); the broker copies its
// configuration in (broker/cluster_options.cpp).
struct SweeperOptions {
  std::string server_id;           // QUEEN_SERVER_ID: the claim owner
  int lease_ms = config::Config::defaults().sweeper.lease_ms;
  int max_sleep_ms = config::Config::defaults().sweeper.max_sleep_ms;
  int min_sleep_ms = 10;           // coalesces timers due within a few ms into one pass
  int claim_batch = 500;           // timers claimed (and fired in one transaction) at a time
  int max_batches_per_pass = 20;   // bounds one pass so KV pruning and stop() get their turn
  int kv_prune_batch = 1000;       // expired KV rows deleted per statement
  int kv_prune_interval_ms = 1000; // how often expired KV rows are pruned
};

// Cumulative counters, readable from any thread (for metrics).
struct SweeperCounters {
  std::uint64_t passes = 0;
  std::uint64_t timers_claimed = 0;
  std::uint64_t timers_fired = 0;
  std::uint64_t kv_pruned = 0;
  std::uint64_t failures = 0;
};

class Sweeper {
 public:
  // Sleeps on `clock`, which must outlive the sweeper. Throws
  // std::invalid_argument on an empty server id or a non-positive option.
  Sweeper(SweeperOptions options, SweeperStore& store, const util::Clock& clock);
  ~Sweeper();  // stop()s
  Sweeper(const Sweeper&) = delete;
  Sweeper& operator=(const Sweeper&) = delete;

  // Starts the background thread (once: a stopped sweeper stays stopped).
  void start();
  // Ends the thread after the database call in progress, if any, returns. It
  // does not hand claims back (see the file comment for why that is bounded).
  void stop();
  // A timer was scheduled on this broker: run a pass now instead of sleeping on.
  void wake();

  // One pass: claim and fire batches until none is full (bounded by
  // max_batches_per_pass), prune KV when due, read the next due time. Never
  // throws: a failure is logged and reported in the outcome. Public for tests
  // and for a manual sweep; the thread calls it in a loop.
  PassOutcome run_pass();

  SweeperCounters counters() const;
  const SweeperOptions& options() const { return options_; }

 private:
  util::Clock::time_point pass_then_sleep();
  void fire_due_timers(PassOutcome& outcome);
  void prune_kv_if_due();
  // Adds `n` (negative: none) to one of the counters.
  void count(std::uint64_t SweeperCounters::*counter, std::int64_t n);

  const SweeperOptions options_;
  SweeperStore& store_;

  std::optional<std::int64_t> last_kv_prune_ms_;  // steady clock; touched by the pass only

  // Counted by passes, copied by counters(): one lock, cheap beside a pass's database calls.
  mutable std::mutex counters_mutex_;
  SweeperCounters counters_;  // guarded by counters_mutex_

  // Last member: its thread stops before the state above goes away.
  util::BackgroundWorker worker_;
};

}  // namespace queen::sweeper
