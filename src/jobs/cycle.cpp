#include "jobs/cycle.h"

#include <algorithm>

namespace queen::jobs {

std::int64_t cycle_of(std::int64_t epoch_ms, std::int64_t cycle_ms) noexcept {
  if (cycle_ms <= 0) return 0;
  const std::int64_t q = epoch_ms / cycle_ms;
  return (epoch_ms % cycle_ms != 0 && epoch_ms < 0) ? q - 1 : q;
}

std::int64_t ms_until_next_cycle(std::int64_t epoch_ms, std::int64_t cycle_ms) noexcept {
  if (cycle_ms <= 0) return 1;
  return (cycle_of(epoch_ms, cycle_ms) + 1) * cycle_ms - epoch_ms;
}

std::int64_t next_attempt_delay_ms(std::int64_t epoch_ms, std::int64_t cycle_ms, std::int64_t max_poll_ms,
                                   std::int64_t boundary_grace_ms) noexcept {
  const std::int64_t to_boundary = ms_until_next_cycle(epoch_ms, cycle_ms) + std::max<std::int64_t>(boundary_grace_ms, 0);
  return std::max<std::int64_t>(1, std::min(to_boundary, max_poll_ms));
}

std::int64_t run_budget_ms(std::int64_t epoch_ms, std::int64_t cycle_ms, std::int64_t min_budget_ms) noexcept {
  return std::max(ms_until_next_cycle(epoch_ms, cycle_ms), min_budget_ms);
}

}  // namespace queen::jobs
