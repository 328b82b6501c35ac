#include "sweeper/sleep_policy.h"

#include <gtest/gtest.h>

using queen::sweeper::kv_prune_due;
using queen::sweeper::PassOutcome;
using queen::sweeper::sleep_after_pass_ms;

namespace {
PassOutcome next_due_in(std::int64_t ms) {
  PassOutcome o;
  o.ms_until_next_due = ms;
  return o;
}
}  // namespace

TEST(SweeperSleep, SleepsUntilTheNextDueTimer) {
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(250), 0, 1000), 250);
}

TEST(SweeperSleep, NeverSleepsPastTheCeiling) {
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(60000), 0, 1000), 1000);
}

TEST(SweeperSleep, NoTimersSleepsTheCeiling) {
  EXPECT_EQ(sleep_after_pass_ms(PassOutcome{}, 0, 1000), 1000);
}

TEST(SweeperSleep, WithoutAFloorAnAlreadyDueTimerMeansNoSleep) {
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(0), 0, 1000), 0);
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(-40), 0, 1000), 0);
}

TEST(SweeperSleep, ABacklogIsWorkedOffWithoutSleeping) {
  PassOutcome o = next_due_in(900);
  o.backlog = true;
  EXPECT_EQ(sleep_after_pass_ms(o, 0, 1000), 0);
}

TEST(SweeperSleep, AFailedPassSleepsTheCeilingEvenWithABacklog) {
  PassOutcome o = next_due_in(0);
  o.backlog = true;
  o.failed = true;
  EXPECT_EQ(sleep_after_pass_ms(o, 0, 700), 700);
}

TEST(SweeperSleep, ANegativeCeilingIsTreatedAsZero) {
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(50), 0, -5), 0);
}

TEST(SweeperSleep, TheFloorCoalescesTimersDueWithinIt) {
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(3), 10, 1000), 10);
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(-5), 10, 1000), 10);  // due yet skipped: do not spin
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(250), 10, 1000), 250);
}

TEST(SweeperSleep, TheFloorNeverDelaysABacklogNorExceedsTheCeiling) {
  PassOutcome o = next_due_in(0);
  o.backlog = true;
  EXPECT_EQ(sleep_after_pass_ms(o, 10, 1000), 0);
  EXPECT_EQ(sleep_after_pass_ms(next_due_in(0), 50, 20), 20);
}

TEST(KvPruneDue, FirstPassPrunes) { EXPECT_TRUE(kv_prune_due(std::nullopt, 5, 1000)); }

TEST(KvPruneDue, PrunesOncePerInterval) {
  EXPECT_FALSE(kv_prune_due(10'000, 10'999, 1000));
  EXPECT_TRUE(kv_prune_due(10'000, 11'000, 1000));
}

TEST(KvPruneDue, AClockThatWentBackwardsPrunes) { EXPECT_TRUE(kv_prune_due(10'000, 9'000, 1000)); }
