#include "mesh/replay_guard.h"

#include <gtest/gtest.h>

using namespace queen::mesh;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000LL;
constexpr std::int64_t kWindow = 30'000;
constexpr std::uint64_t kBoot = 1'699'999'000'000ULL;

ReplayGuard make_guard(std::size_t max_senders = 64) { return ReplayGuard(ReplayGuardOptions{kWindow, max_senders}); }

}  // namespace

TEST(ReplayGuard, AcceptsIncreasingSequencesAndRejectsARepeat) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 1, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 2, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 2, kNow, kNow), ReplayVerdict::Replayed);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 1, kNow, kNow), ReplayVerdict::Replayed);
  // Gaps are fine: frames to other peers, or dropped ones, consume sequence numbers too.
  EXPECT_EQ(guard.check_and_record("a", kBoot, 10, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 9, kNow, kNow), ReplayVerdict::Replayed);
}

TEST(ReplayGuard, SendersAreTrackedIndependently) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 5, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("b", kBoot, 1, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("b", kBoot, 1, kNow, kNow), ReplayVerdict::Replayed);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 6, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.sender_count(), 2u);
}

TEST(ReplayGuard, TimestampsOutsideTheSkewWindowAreStaleInBothDirections) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 1, kNow - kWindow - 1, kNow), ReplayVerdict::Stale);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 2, kNow + kWindow + 1, kNow), ReplayVerdict::Stale);
  EXPECT_EQ(guard.sender_count(), 0u) << "a stale frame must not be recorded";
  EXPECT_EQ(guard.check_and_record("a", kBoot, 3, kNow - kWindow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 4, kNow + kWindow, kNow), ReplayVerdict::Accepted);
}

TEST(ReplayGuard, ARestartedSenderIsAcceptedWithItsCounterStartingOver) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 500, kNow, kNow), ReplayVerdict::Accepted);
  const std::uint64_t new_boot = kBoot + 60'000;
  EXPECT_EQ(guard.check_and_record("a", new_boot, 1, kNow + 10, kNow + 10), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", new_boot, 2, kNow + 20, kNow + 20), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", new_boot, 2, kNow + 30, kNow + 30), ReplayVerdict::Replayed);
}

TEST(ReplayGuard, FramesOfAnOlderIncarnationAreReplaysEvenWhenFresh) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 500, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("a", kBoot + 1, 1, kNow + 5, kNow + 5), ReplayVerdict::Accepted);
  // A frame captured from the old boot a moment ago, replayed inside the window.
  EXPECT_EQ(guard.check_and_record("a", kBoot, 501, kNow, kNow + 10), ReplayVerdict::Replayed);
}

TEST(ReplayGuard, ASenderWhoseClockSteppedBackIsAcceptedOnceItsOldBootWentSilent) {
  auto guard = make_guard();
  EXPECT_EQ(guard.check_and_record("a", kBoot, 500, kNow, kNow), ReplayVerdict::Accepted);
  const std::uint64_t earlier_boot = kBoot - 5'000;  // restarted with a clock that went backwards
  EXPECT_EQ(guard.check_and_record("a", earlier_boot, 1, kNow + 1'000, kNow + 1'000), ReplayVerdict::Replayed);
  const std::int64_t later = kNow + kWindow + 1;
  EXPECT_EQ(guard.check_and_record("a", earlier_boot, 2, later, later), ReplayVerdict::Accepted);
  // From then on it follows the new boot id; the old one's frames are stale anyway.
  EXPECT_EQ(guard.check_and_record("a", earlier_boot, 2, later, later), ReplayVerdict::Replayed);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 501, kNow, later), ReplayVerdict::Stale);
}

TEST(ReplayGuard, TheSenderTableIsBoundedAndForgetsOnlySilentSenders) {
  auto guard = make_guard(2);
  EXPECT_EQ(guard.check_and_record("a", kBoot, 1, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("b", kBoot, 1, kNow, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("c", kBoot, 1, kNow, kNow), ReplayVerdict::TooManySenders);
  EXPECT_EQ(guard.sender_count(), 2u);

  const std::int64_t later = kNow + kWindow + 1;
  EXPECT_EQ(guard.check_and_record("b", kBoot, 2, later, later), ReplayVerdict::Accepted);  // b stays live
  EXPECT_EQ(guard.check_and_record("c", kBoot, 1, later, later), ReplayVerdict::Accepted);  // a was silent
  EXPECT_EQ(guard.sender_count(), 2u);
  EXPECT_EQ(guard.check_and_record("b", kBoot, 2, later, later), ReplayVerdict::Replayed) << "b was kept";
}

TEST(ReplayGuard, VerdictNames) {
  EXPECT_STREQ(to_string(ReplayVerdict::Accepted), "accepted");
  EXPECT_STREQ(to_string(ReplayVerdict::Replayed), "replayed");
  EXPECT_STREQ(to_string(ReplayVerdict::Stale), "stale");
  EXPECT_STREQ(to_string(ReplayVerdict::TooManySenders), "too_many_senders");
}
