#include "sweeper/sweeper.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace queen::sweeper {
namespace {

std::int64_t steady_now_ms(const util::Clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now().time_since_epoch()).count();
}

void require_positive(int value, const char* name) {
  if (value <= 0) throw std::invalid_argument(std::string("sweeper option ") + name + " must be positive");
}

}  // namespace

Sweeper::Sweeper(SweeperOptions options, SweeperStore& store, const util::Clock& clock)
    : options_(std::move(options)),
      store_(store),
      // run_pass() never throws, so the retry delay is only a formality.
      worker_("sweeper", clock, [this] { return pass_then_sleep(); },
              std::chrono::milliseconds(std::max(0, options_.max_sleep_ms))) {
  if (options_.server_id.empty()) throw std::invalid_argument("sweeper needs a server id (the claim owner)");
  require_positive(options_.lease_ms, "lease_ms");
  require_positive(options_.max_sleep_ms, "max_sleep_ms");
  if (options_.min_sleep_ms < 0) throw std::invalid_argument("sweeper option min_sleep_ms must not be negative");
  require_positive(options_.claim_batch, "claim_batch");
  require_positive(options_.max_batches_per_pass, "max_batches_per_pass");
  require_positive(options_.kv_prune_batch, "kv_prune_batch");
  require_positive(options_.kv_prune_interval_ms, "kv_prune_interval_ms");
}

Sweeper::~Sweeper() { stop(); }

void Sweeper::start() {
  if (worker_.stop_requested() || worker_.running()) return;
  spdlog::info("sweeper: started (server {}, lease {} ms, max sleep {} ms, batch {})", options_.server_id,
               options_.lease_ms, options_.max_sleep_ms, options_.claim_batch);
  worker_.start();
}

void Sweeper::stop() {
  const bool was_running = worker_.running();
  worker_.stop();
  if (was_running) spdlog::info("sweeper: stopped");
}

void Sweeper::wake() { worker_.wake(); }

util::Clock::time_point Sweeper::pass_then_sleep() {
  const PassOutcome outcome = run_pass();
  const auto sleep_ms = sleep_after_pass_ms(outcome, options_.min_sleep_ms, options_.max_sleep_ms);
  return worker_.clock().now() + std::chrono::milliseconds(sleep_ms);
}

PassOutcome Sweeper::run_pass() {
  PassOutcome outcome;
  count(&SweeperCounters::passes, 1);
  try {
    fire_due_timers(outcome);
    prune_kv_if_due();
    if (!outcome.backlog) outcome.ms_until_next_due = store_.ms_until_next_timer();
  } catch (const std::exception& e) {
    outcome.failed = true;
    count(&SweeperCounters::failures, 1);
    spdlog::warn("sweeper: pass failed, retrying in {} ms: {}", options_.max_sleep_ms, e.what());
  }
  return outcome;
}

void Sweeper::fire_due_timers(PassOutcome& outcome) {
  for (int batch = 0; batch < options_.max_batches_per_pass; ++batch) {
    if (worker_.stop_requested()) return;
    const auto ids = store_.claim_due_timers(options_.server_id, options_.claim_batch, options_.lease_ms);
    if (ids.empty()) {
      outcome.backlog = false;
      return;
    }
    count(&SweeperCounters::timers_claimed, static_cast<std::int64_t>(ids.size()));
    // If this call fails the claims stay with us until the lease expires, and
    // then another pass (ours or another broker's) fires them: never lost.
    const int fired = store_.fire_timers(options_.server_id, ids);
    count(&SweeperCounters::timers_fired, fired);
    outcome.backlog = static_cast<int>(ids.size()) >= options_.claim_batch;
    if (!outcome.backlog) return;
  }
}

void Sweeper::prune_kv_if_due() {
  const auto now = steady_now_ms(worker_.clock());
  if (!kv_prune_due(last_kv_prune_ms_, now, options_.kv_prune_interval_ms)) return;
  // One bounded statement per interval; a large backlog drains over several
  // intervals (expired keys already read as absent, so nothing waits on it).
  const int pruned = store_.prune_expired_kv(options_.kv_prune_batch);
  last_kv_prune_ms_ = now;
  count(&SweeperCounters::kv_pruned, pruned);
}

void Sweeper::count(std::uint64_t SweeperCounters::*counter, std::int64_t n) {
  if (n <= 0) return;
  std::lock_guard<std::mutex> lock(counters_mutex_);
  counters_.*counter += static_cast<std::uint64_t>(n);
}

SweeperCounters Sweeper::counters() const {
  std::lock_guard<std::mutex> lock(counters_mutex_);
  return counters_;
}

}  // namespace queen::sweeper
