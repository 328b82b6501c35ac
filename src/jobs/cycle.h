#pragma once
// Pure cycle arithmetic of single-runner jobs. A job of period P has cycles
// numbered floor(epoch_ms / P), the same numbering queen.try_begin_job_cycle
// uses, so every broker agrees on which cycle "now" is without talking to the
// others. No clock, no database: unit-tested.
#include <cstdint>

namespace queen::jobs {

// The cycle containing epoch_ms (floor division, also for times before 1970).
std::int64_t cycle_of(std::int64_t epoch_ms, std::int64_t cycle_ms) noexcept;

// Milliseconds from epoch_ms to the start of the next cycle (1..cycle_ms).
std::int64_t ms_until_next_cycle(std::int64_t epoch_ms, std::int64_t cycle_ms) noexcept;

// How long a runner waits before its next election attempt: just past the next
// cycle boundary (by `boundary_grace_ms`, so a database clock a little behind
// ours still sees the new cycle), but never longer than max_poll_ms, so a
// broker whose clock runs ahead of the database's retries within the cycle
// instead of missing it. At least 1 ms.
std::int64_t next_attempt_delay_ms(std::int64_t epoch_ms, std::int64_t cycle_ms, std::int64_t max_poll_ms,
                                   std::int64_t boundary_grace_ms) noexcept;

// The time an elected run may spend: until its cycle ends, so runs of
// consecutive cycles do not overlap, but at least min_budget_ms so a run
// elected late in its cycle still does one bounded batch.
std::int64_t run_budget_ms(std::int64_t epoch_ms, std::int64_t cycle_ms, std::int64_t min_budget_ms) noexcept;

}  // namespace queen::jobs
