#pragma once
// Pure decisions of the sweeper loop: how long to sleep after a pass, and
// whether a pass prunes expired KV rows. No clock, no database: unit-tested.
#include <cstdint>
#include <optional>

namespace queen::sweeper {

// What one pass of the sweeper observed.
struct PassOutcome {
  // A claim returned a full batch on the last try: more timers are due now.
  bool backlog = false;
  // Milliseconds from now until the next timer becomes claimable, by the
  // database clock (negative = already due); empty = no timer rows at all.
  std::optional<std::int64_t> ms_until_next_due;
  // The pass failed (database unreachable, a procedure raised).
  bool failed = false;
};

// How long to sleep before the next pass, in milliseconds, never more than
// max_sleep_ms: 0 while a backlog is being worked off, otherwise the time
// until the next due timer but at least min_sleep_ms. The floor coalesces
// timers due a few milliseconds apart into one pass (deliverAt is a floor,
// never an appointment) and stops a broker from spinning on rows another
// broker is claiming at this instant (due, yet skipped as locked). A failed
// pass sleeps the full ceiling so a broker does not hammer a database that is
// down. The ceiling bounds how late a timer scheduled on another broker fires
// (there is no mesh frame for timers).
std::int64_t sleep_after_pass_ms(const PassOutcome& outcome, std::int64_t min_sleep_ms,
                                 std::int64_t max_sleep_ms) noexcept;

// Expired KV rows are pruned at most once per interval (they already read as
// absent, so pruning is housekeeping and need not follow timer wakes).
bool kv_prune_due(std::optional<std::int64_t> last_prune_ms, std::int64_t now_ms,
                  std::int64_t prune_interval_ms) noexcept;

}  // namespace queen::sweeper
