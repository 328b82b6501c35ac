#include "flow/grant_core.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace queen::flow {
namespace {

using AskResult = GrantCore::AskResult;

FlowLimits limits(int total, int lane_slots, int queue, int maint_slots = 1) {
  FlowLimits l;
  l.total_slots = total;
  for (const Lane lane : kWakeOrder) l[lane] = LaneLimits{lane_slots, queue, std::chrono::milliseconds(100)};
  l[Lane::Maint].slots = maint_slots;
  return l;
}

TEST(GrantCore, GrantsAtOnceWhileSlotsAreFree) {
  GrantCore core(limits(3, 3, 10));
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Pop).result, AskResult::Granted);
  EXPECT_EQ(core.total_in_use(), 3);
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Queued);
  EXPECT_EQ(core.waiting(Lane::Push), 1);
}

TEST(GrantCore, ALaneNeverHoldsMoreThanItsCap) {
  GrantCore core(limits(10, 2, 10));
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Queued);  // 8 slots free, the lane is at its cap
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);   // other lanes are not held up
  EXPECT_EQ(core.in_use(Lane::Push), 2);
}

TEST(GrantCore, AFullQueueRefuses) {
  GrantCore core(limits(1, 1, 2));
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::Queued);
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::Queued);
  EXPECT_EQ(core.ask(Lane::Ack).result, AskResult::QueueFull);
  EXPECT_EQ(core.waiting(Lane::Ack), 2);
  // The bound is per lane.
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Queued);
}

TEST(GrantCore, AZeroQueueRefusesWhenNoSlotIsFree) {
  GrantCore core(limits(1, 1, 0));
  EXPECT_EQ(core.ask(Lane::Pop).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Pop).result, AskResult::QueueFull);
}

TEST(GrantCore, AFreedSlotWakesLanesInOrderPushPopAckReadMaint) {
  GrantCore core(limits(1, 1, 10));
  ASSERT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  // Queued in the reverse of the wake order.
  const auto maint = core.ask(Lane::Maint);
  const auto read = core.ask(Lane::Read);
  const auto ack = core.ask(Lane::Ack);
  const auto pop = core.ask(Lane::Pop);
  const auto push = core.ask(Lane::Push);
  std::vector<Lane> order;
  std::optional<GrantCore::Grant> g = core.release(Lane::Ack);
  while (g) {
    order.push_back(g->lane);
    g = core.release(g->lane);
  }
  EXPECT_EQ(order, (std::vector<Lane>{Lane::Push, Lane::Pop, Lane::Ack, Lane::Read, Lane::Maint}));
  (void)maint, (void)read, (void)ack, (void)pop, (void)push;
  EXPECT_EQ(core.total_in_use(), 0);
}

TEST(GrantCore, FifoWithinALane) {
  GrantCore core(limits(1, 1, 10));
  ASSERT_EQ(core.ask(Lane::Pop).result, AskResult::Granted);
  const auto first = core.ask(Lane::Pop);
  const auto second = core.ask(Lane::Pop);
  auto g = core.release(Lane::Pop);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ticket, first.ticket);
  g = core.release(Lane::Pop);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ticket, second.ticket);
}

TEST(GrantCore, AWaiterOfALaneAtItsCapDoesNotTakeTheFreedSlot) {
  FlowLimits l = limits(2, 2, 10);
  l[Lane::Push].slots = 1;
  GrantCore core(l);
  ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  ASSERT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  core.ask(Lane::Push);  // at its cap
  core.ask(Lane::Ack);
  const auto g = core.release(Lane::Ack);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->lane, Lane::Ack);
  const auto g2 = core.release(Lane::Push);
  ASSERT_TRUE(g2);
  EXPECT_EQ(g2->lane, Lane::Push);
}

TEST(GrantCore, AWithdrawnTicketIsNotGranted) {
  GrantCore core(limits(1, 1, 10));
  ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  const auto gone = core.ask(Lane::Pop);
  const auto stays = core.ask(Lane::Ack);
  EXPECT_TRUE(core.withdraw(Lane::Pop, gone.ticket));
  EXPECT_FALSE(core.withdraw(Lane::Pop, gone.ticket));
  const auto g = core.release(Lane::Push);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ticket, stays.ticket);
  EXPECT_FALSE(core.withdraw(Lane::Ack, stays.ticket));  // granted, no longer queued
}

// Every lane saturated: of the slots freed while Maint waits, Maint gets one
// in twenty (the 0.05 share): never starved, never ahead of live traffic.
TEST(GrantCore, MaintKeepsItsShareUnderFullLiveLoad) {
  GrantCore core(limits(4, 4, 1000, 4));
  for (int i = 0; i < 4; ++i) ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  for (int i = 0; i < 500; ++i) {
    core.ask(Lane::Push);
    core.ask(Lane::Pop);
    core.ask(Lane::Ack);
  }
  for (int i = 0; i < 100; ++i) core.ask(Lane::Maint);
  std::map<Lane, int> grants;
  std::vector<int> maint_at;
  Lane freeing = Lane::Push;
  for (int n = 0; n < 1000; ++n) {
    const auto g = core.release(freeing);
    ASSERT_TRUE(g);
    ++grants[g->lane];
    if (g->lane == Lane::Maint) maint_at.push_back(n);
    freeing = g->lane;
  }
  EXPECT_EQ(grants[Lane::Maint], 50);
  // Evenly spread: one in every twenty grants.
  for (std::size_t k = 1; k < maint_at.size(); ++k) EXPECT_EQ(maint_at[k] - maint_at[k - 1], 20);
  // The rest went in wake order: Push first, and only Push (it never runs dry here).
  EXPECT_EQ(grants[Lane::Push], 500);
  EXPECT_EQ(grants[Lane::Pop] + grants[Lane::Ack], 450);
}

TEST(GrantCore, MaintTakesEveryFreeSlotNobodyElseWants) {
  GrantCore core(limits(2, 2, 10, 2));
  ASSERT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  ASSERT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  core.ask(Lane::Maint);
  core.ask(Lane::Maint);
  auto g = core.release(Lane::Ack);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->lane, Lane::Maint);
  g = core.release(Lane::Ack);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->lane, Lane::Maint);
}

TEST(GrantCore, AReturningMaintDoesNotBurstPastItsShare) {
  GrantCore core(limits(1, 1, 1000, 1));
  ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  // Live traffic alone for a while: those grants are not contested.
  for (int i = 0; i < 200; ++i) core.ask(Lane::Push);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(core.release(Lane::Push));
  // Now Maint and Push both wait: Push first, Maint on the twentieth grant.
  for (int i = 0; i < 100; ++i) core.ask(Lane::Push);
  for (int i = 0; i < 10; ++i) core.ask(Lane::Maint);
  Lane freeing = Lane::Push;
  int first_maint = -1;
  for (int n = 0; n < 40 && first_maint < 0; ++n) {
    const auto g = core.release(freeing);
    ASSERT_TRUE(g);
    if (g->lane == Lane::Maint) first_maint = n;
    freeing = g->lane;
  }
  EXPECT_EQ(first_maint, 19);
}

// ---------------------------------------------------------------- the Read lane

// Slow reads hold their slots (they are never released here): the lane stops
// at its cap and every other slot keeps serving the live lanes.
TEST(GrantCore, ReadsAtTheirCapNeverStarveTheLiveLanes) {
  FlowLimits l = limits(4, 4, 1000);
  l[Lane::Read].slots = 2;
  GrantCore core(l);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  for (int i = 0; i < 100; ++i) core.ask(Lane::Read);
  for (int i = 0; i < 500; ++i) core.ask(Lane::Push);
  std::map<Lane, int> grants;
  for (int n = 0; n < 400; ++n) {
    const auto g = core.release(Lane::Push);
    ASSERT_TRUE(g);
    ++grants[g->lane];
    ASSERT_LE(core.in_use(Lane::Read), 2);
  }
  EXPECT_EQ(grants[Lane::Read], 2);
  EXPECT_EQ(grants[Lane::Push], 398);
  EXPECT_EQ(core.in_use(Lane::Push), 2);
  EXPECT_EQ(core.waiting(Lane::Read), 98);
}

TEST(GrantCore, AFullReadQueueRefusesAtOnceWhileOtherLanesStillQueue) {
  FlowLimits l = limits(8, 8, 100);
  l[Lane::Read] = LaneLimits{1, 2, std::chrono::milliseconds(100)};
  GrantCore core(l);
  EXPECT_EQ(core.ask(Lane::Read).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Read).result, AskResult::Queued);
  EXPECT_EQ(core.ask(Lane::Read).result, AskResult::Queued);
  EXPECT_EQ(core.ask(Lane::Read).result, AskResult::QueueFull);
  EXPECT_EQ(core.waiting(Lane::Read), 2);
  // Seven slots are free: the other lanes are granted at once.
  for (int i = 0; i < 7; ++i) EXPECT_EQ(core.ask(Lane::Pop).result, AskResult::Granted);
  EXPECT_EQ(core.ask(Lane::Pop).result, AskResult::Queued);
}

// Every live lane saturated with a queue behind it: of the slots freed while
// reads wait, reads get one in ten (the 0.1 share), evenly spread; by wake
// order alone they would get none while pushes wait.
TEST(GrantCore, ReadsKeepTheirShareUnderFullLiveLoad) {
  GrantCore core(limits(4, 4, 1000));
  for (int i = 0; i < 4; ++i) ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  for (int i = 0; i < 900; ++i) {
    core.ask(Lane::Push);
    core.ask(Lane::Pop);
    core.ask(Lane::Ack);
  }
  for (int i = 0; i < 200; ++i) core.ask(Lane::Read);
  std::map<Lane, int> grants;
  std::vector<int> read_at;
  Lane freeing = Lane::Push;
  for (int n = 0; n < 1000; ++n) {
    const auto g = core.release(freeing);
    ASSERT_TRUE(g);
    ++grants[g->lane];
    if (g->lane == Lane::Read) read_at.push_back(n);
    freeing = g->lane;
  }
  EXPECT_EQ(grants[Lane::Read], 100);
  for (std::size_t k = 1; k < read_at.size(); ++k) EXPECT_EQ(read_at[k] - read_at[k - 1], 10);
  EXPECT_EQ(grants[Lane::Push], 900);
}

// Reads and replay both wait under full live load: each keeps its own share
// (Maint one in twenty, reads one in ten), the live lanes get the rest.
TEST(GrantCore, ReadAndMaintSharesHoldTogether) {
  GrantCore core(limits(4, 4, 2000, 4));
  for (int i = 0; i < 4; ++i) ASSERT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
  for (int i = 0; i < 1000; ++i) core.ask(Lane::Push);
  for (int i = 0; i < 200; ++i) core.ask(Lane::Read);
  for (int i = 0; i < 200; ++i) core.ask(Lane::Maint);
  std::map<Lane, int> grants;
  Lane freeing = Lane::Push;
  for (int n = 0; n < 1000; ++n) {
    const auto g = core.release(freeing);
    ASSERT_TRUE(g);
    ++grants[g->lane];
    freeing = g->lane;
  }
  EXPECT_EQ(grants[Lane::Maint], 50);
  // When both are owed Maint goes first; reads lose at most that one grant of their hundred.
  EXPECT_GE(grants[Lane::Read], 99);
  EXPECT_LE(grants[Lane::Read], 100);
  EXPECT_EQ(grants[Lane::Push], 1000 - grants[Lane::Maint] - grants[Lane::Read]);
}

TEST(GrantCore, ReadsTakeFreeSlotsNobodyElseWantsUpToTheirCap) {
  FlowLimits l = limits(4, 4, 10);
  l[Lane::Read].slots = 3;
  GrantCore core(l);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(core.ask(Lane::Ack).result, AskResult::Granted);
  for (int i = 0; i < 4; ++i) core.ask(Lane::Read);
  for (int i = 0; i < 4; ++i) {
    const auto g = core.release(Lane::Ack);
    if (i < 3) {
      ASSERT_TRUE(g);
      EXPECT_EQ(g->lane, Lane::Read);
    } else {
      EXPECT_FALSE(g);  // at its cap: the fourth read keeps waiting, the slot stays free
    }
  }
  EXPECT_EQ(core.in_use(Lane::Read), 3);
  EXPECT_EQ(core.total_in_use(), 3);
  EXPECT_EQ(core.ask(Lane::Push).result, AskResult::Granted);
}

}  // namespace
}  // namespace queen::flow
