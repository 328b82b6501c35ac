// Admission in the generic Combiner (docs/flow-control.md): every call holds
// one slot of the combiner's lane, taken by the leader before it gathers its
// batch; the line of requests waiting for a call is bounded by the lane's
// queue and wait bounds. Push has its own tests (push_combiner_test.cpp);
// these cover the other uses (ack, pop) and the generic mechanism.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "broker/ack_combiner.h"
#include "broker/admission.h"
#include "broker/combiner.h"
#include "broker/pop_combiner.h"
#include "db/db_error.h"
#include "util/clock.h"
#include "../support/eventually.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;

namespace {

// A request is an int: equal ints may share a call (a "class"); a negative
// one fails permanently. Calls wait at the gate while it is closed.
class FakeCalls {
 public:
  using C = Combiner<int, std::vector<int>, int>;

  C::Hooks hooks() {
    return {[](const C::Batch& batch, const int& candidate) { return candidate == *batch.front(); },
            [](const int&) { return std::size_t{1}; },
            [this](const C::Batch& batch) {
              enter();
              std::vector<int> rows;
              for (const int* r : batch) {
                if (*r < 0) throw db::DbError("invalid input", "22023");
                rows.push_back(*r);
              }
              return rows;
            },
            [](std::vector<int> rows, const C::Batch&) { return rows; }, db::is_transient_failure, nullptr};
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = false;
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void wait_entered(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return entered_ >= n; });
  }
  int entered() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entered_;
  }

 private:
  void enter() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  int entered_ = 0;
  bool open_ = true;
};

flow::FlowLimits lane_limits(flow::Lane lane, int slots, int queue, std::chrono::milliseconds wait) {
  flow::FlowLimits l;
  l.total_slots = 4;
  for (const flow::Lane each : flow::kWakeOrder) l[each] = flow::LaneLimits{4, 4, 10s};
  l[lane] = flow::LaneLimits{slots, queue, wait};
  return l;
}

flow::LaneSnapshot lane_of(const flow::Arbiter& arbiter, flow::Lane lane) {
  return arbiter.snapshot()[flow::index_of(lane)];
}

void wait_for_lane_waiters(const flow::Arbiter& arbiter, flow::Lane lane, int n) {
  ASSERT_TRUE(test_support::eventually([&] { return lane_of(arbiter, lane).waiting >= n; }));
  ASSERT_EQ(lane_of(arbiter, lane).waiting, n);
}

template <class C>
void wait_until_queued(const C& combiner, std::size_t n) {
  ASSERT_TRUE(test_support::eventually([&] { return combiner.waiting() >= n; }));
  ASSERT_EQ(combiner.waiting(), n);
}

}  // namespace

// Two classes, one lane slot: the second class's leader waits for the slot,
// and requests of its class arriving meanwhile ride its one call.
TEST(CombinerAdmission, ALeaderWaitingForTheLaneSlotGathersItsClassBehindIt) {
  FakeCalls fake;
  flow::Arbiter arbiter(lane_limits(flow::Lane::Pop, 1, 10, 10s), util::real_clock());
  FakeCalls::C combiner(fake.hooks(), {100, 4}, {&arbiter, flow::Lane::Pop});
  fake.close();
  auto first = std::async(std::launch::async, [&] { return combiner.submit(1); });
  fake.wait_entered(1);
  auto leader = std::async(std::launch::async, [&] { return combiner.submit(2); });
  wait_for_lane_waiters(arbiter, flow::Lane::Pop, 1);
  std::vector<std::future<int>> riders;
  for (std::size_t i = 0; i < 3; ++i) {
    riders.push_back(std::async(std::launch::async, [&] { return combiner.submit(2); }));
    wait_until_queued(combiner, i + 1);  // the leader waiting for its slot is the arbiter's
  }
  fake.open();
  EXPECT_EQ(first.get(), 1);
  EXPECT_EQ(leader.get(), 2);
  for (auto& r : riders) EXPECT_EQ(r.get(), 2);
  EXPECT_EQ(fake.entered(), 2);
  EXPECT_EQ(combiner.stats().combined_requests, 4u);
  const flow::LaneSnapshot pop = lane_of(arbiter, flow::Lane::Pop);
  EXPECT_EQ(pop.granted, 2u);
  EXPECT_EQ(pop.in_use, 0);
  EXPECT_EQ(combiner.waiting(), 0u);
}

TEST(CombinerAdmission, TheCallersDeadlineEndsTheWaitForALaneSlotWithLaneRefused) {
  FakeCalls fake;
  flow::Arbiter arbiter(lane_limits(flow::Lane::Pop, 1, 10, 10s), util::real_clock());
  FakeCalls::C combiner(fake.hooks(), {100, 4}, {&arbiter, flow::Lane::Pop});
  fake.close();
  auto busy = std::async(std::launch::async, [&] { return combiner.submit(1); });
  fake.wait_entered(1);
  // Another class leads and waits for the slot; one of its class waits in line behind it.
  auto rider = std::async(std::launch::async, [&] {
    try {
      combiner.submit(2, arbiter.clock().now() + 30ms);
    } catch (const LaneRefused& e) {
      return e.why();
    }
    return flow::Refusal::None;
  });
  try {
    combiner.submit(2, arbiter.clock().now() + 30ms);
    ADD_FAILURE() << "no slot was free";
  } catch (const LaneRefused& e) {
    EXPECT_EQ(e.lane(), flow::Lane::Pop);
    EXPECT_EQ(e.kind(), ErrorKind::TooManyRequests);
  }
  EXPECT_EQ(rider.get(), flow::Refusal::Timeout);
  fake.open();
  EXPECT_EQ(busy.get(), 1);
  EXPECT_EQ(fake.entered(), 1);  // the refused requests made no call
  const flow::LaneSnapshot pop = lane_of(arbiter, flow::Lane::Pop);
  EXPECT_EQ(pop.rejected_timeout, 2u);
  EXPECT_EQ(pop.in_use, 0);
  EXPECT_EQ(combiner.waiting(), 0u);
  EXPECT_EQ(combiner.submit(2), 2);  // the lane recovers
}

TEST(CombinerAdmission, AFullLaneQueueRefusesAnAckAtOnceAndNothingIsAcked) {
  int calls = 0;
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
  flow::Arbiter arbiter(lane_limits(flow::Lane::Ack, 1, 0, 10s), util::real_clock());
  AckCombiner combiner(
      [&](const std::string&, const std::optional<std::string>&, const Tenant&) {
        std::unique_lock<std::mutex> lock(mutex);
        ++calls;
        changed.notify_all();
        changed.wait(lock, [&] { return open; });
        return std::vector<db::AckRow>{db::AckRow{}};
      },
      [](const std::string&, const Tenant&) { return std::vector<db::CombinedAckRow>{}; },
      db::is_transient_failure, 1000, 1, &arbiter);
  const std::optional<std::string> group;
  const std::string json = R"([{"transactionId":"a","partitionId":"p"}])";
  auto busy = std::async(std::launch::async, [&] { return combiner.submit(json, 1, {"p1"}, group, Tenant::default_tenant()); });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return calls == 1; });
  }
  // A bound of 0: an ack that cannot lead a call at once is refused.
  EXPECT_THROW(combiner.submit(json, 1, {"p2"}, group, Tenant::default_tenant()), LaneRefused);
  {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    changed.notify_all();
  }
  EXPECT_EQ(busy.get().size(), 1u);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(lane_of(arbiter, flow::Lane::Ack).rejected_queue_full, 1u);
  EXPECT_EQ(combiner.waiting(), 0u);
}

// Many classes, leaders, riders and solo retries after permanent failures,
// all through one lane slot and two call slots per class: every request ends
// (no caller holds a lane slot while waiting for a call slot) and the lane is idle after.
TEST(CombinerAdmission, ManyClassesAndSoloRetriesThroughOneLaneSlotAllEnd) {
  FakeCalls fake;
  flow::Arbiter arbiter(lane_limits(flow::Lane::Pop, 1, 1000, 30s), util::real_clock());
  FakeCalls::C combiner(fake.hooks(), {5, 2}, {&arbiter, flow::Lane::Pop});
  std::vector<std::future<int>> results;
  for (int r = 0; r < 60; ++r) {
    const int request = r % 11 == 0 ? -1 : r % 3;
    results.push_back(std::async(std::launch::async, [&combiner, request] {
      try {
        return combiner.submit(request);
      } catch (const db::DbError&) {
        return -100;
      }
    }));
  }
  int failed = 0;
  for (int r = 0; r < 60; ++r) {
    const int got = results[static_cast<std::size_t>(r)].get();
    if (r % 11 == 0) {
      EXPECT_EQ(got, -100);
      ++failed;
    } else {
      EXPECT_EQ(got, r % 3);
    }
  }
  EXPECT_EQ(failed, 6);
  const flow::LaneSnapshot pop = lane_of(arbiter, flow::Lane::Pop);
  EXPECT_EQ(pop.in_use, 0);
  EXPECT_EQ(pop.waiting, 0);
  EXPECT_EQ(pop.granted, static_cast<std::uint64_t>(fake.entered()));
  EXPECT_EQ(combiner.waiting(), 0u);
}

TEST(CombinerAdmission, APopCombinerCallHoldsOnePopSlot) {
  flow::Arbiter arbiter(lane_limits(flow::Lane::Pop, 1, 10, 10s), util::real_clock());
  int in_use_during_call = -1;
  PopCombiner combiner(
      [&](const db::PopRequest&) {
        in_use_during_call = lane_of(arbiter, flow::Lane::Pop).in_use;
        return std::vector<db::PoppedMessage>{};
      },
      [](int, const db::PopRequest&) { return std::vector<db::CombinedPopRow>{}; }, db::is_transient_failure, 100,
      1, &arbiter);
  EXPECT_TRUE(combiner.submit(db::PopRequest(Tenant::default_tenant())).empty());
  EXPECT_EQ(in_use_during_call, 1);
  EXPECT_EQ(lane_of(arbiter, flow::Lane::Pop).in_use, 0);
  EXPECT_EQ(lane_of(arbiter, flow::Lane::Pop).granted, 1u);
}
