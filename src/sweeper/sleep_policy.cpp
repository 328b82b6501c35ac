#include "sweeper/sleep_policy.h"

#include <algorithm>

namespace queen::sweeper {

std::int64_t sleep_after_pass_ms(const PassOutcome& outcome, std::int64_t min_sleep_ms,
                                 std::int64_t max_sleep_ms) noexcept {
  const std::int64_t ceiling = std::max<std::int64_t>(max_sleep_ms, 0);
  const std::int64_t floor = std::clamp<std::int64_t>(min_sleep_ms, 0, ceiling);
  if (outcome.failed) return ceiling;
  if (outcome.backlog) return 0;
  if (!outcome.ms_until_next_due) return ceiling;
  return std::clamp<std::int64_t>(*outcome.ms_until_next_due, floor, ceiling);
}

bool kv_prune_due(std::optional<std::int64_t> last_prune_ms, std::int64_t now_ms,
                  std::int64_t prune_interval_ms) noexcept {
  if (!last_prune_ms) return true;
  // A clock that stepped backwards must not postpone pruning forever.
  if (now_ms < *last_prune_ms) return true;
  return now_ms - *last_prune_ms >= prune_interval_ms;
}

}  // namespace queen::sweeper
