#include "broker/push_combiner.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "util/clock.h"
#include "../support/eventually.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;

namespace {

// submit() with each item's dedup identity (queue q, partition p, its text as transaction id).
std::vector<db::PushRow> submit_items(PushCombiner& combiner, const std::vector<std::string>& encoded,
                                      const db::PushOrigin& origin) {
  std::vector<DedupItem> keys;
  for (const auto& item : encoded) keys.push_back(DedupItem{"q", "p", item});
  return combiner.submit(encoded, keys, origin);
}

// The default tenant's push without a producer subject.
db::PushOrigin anonymous_origin() { return db::PushOrigin{Tenant::default_tenant(), std::nullopt}; }

// A fake push_messages: one `queued` row per item, transaction_id echoed,
// optionally blocked until released, failing on items named "bad".
class FakePushCall {
 public:
  std::vector<db::PushRow> operator()(const std::string& items_json, const db::PushOrigin& origin,
                                      const std::vector<DedupItem>& keys) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      calls_.push_back(items_json);
      origins_.push_back(origin);
      ++entered_;
      entered_cv_.notify_all();
      released_cv_.wait(lock, [&] { return !blocked_; });
    }
    const auto items = nlohmann::json::parse(items_json);
    EXPECT_EQ(keys.size(), items.size()) << "a dedup identity per item, in item order";
    std::vector<db::PushRow> rows;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string txid = items[i].at("transactionId").get<std::string>();
      if (txid == "bad") throw db::DbError("invalid input", "22023");
      if (txid == "down") throw db::DbError("connection lost", "");
      if (txid == "stray") {  // a row for an index past the items sent
        db::PushRow stray;
        stray.idx = static_cast<int>(items.size());
        rows.push_back(stray);
      }
      db::PushRow row;
      row.idx = static_cast<int>(i);
      row.status = "queued";
      row.transaction_id = txid;
      rows.push_back(row);
    }
    // Out of order on purpose: the combiner must split by idx, not position.
    std::reverse(rows.begin(), rows.end());
    return rows;
  }

  void block() {
    std::lock_guard<std::mutex> lock(mutex_);
    blocked_ = true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocked_ = false;
    }
    released_cv_.notify_all();
  }
  void wait_entered(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    entered_cv_.wait(lock, [&] { return entered_ >= n; });
  }
  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }
  std::vector<db::PushOrigin> origins() {
    std::lock_guard<std::mutex> lock(mutex_);
    return origins_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable entered_cv_, released_cv_;
  bool blocked_ = false;
  int entered_ = 0;
  std::vector<std::string> calls_;
  std::vector<db::PushOrigin> origins_;
};

const auto transient = db::is_transient_failure;

std::vector<std::string> items(std::initializer_list<std::string> txids) {
  std::vector<std::string> out;
  for (const auto& t : txids) out.push_back("{\"queue\":\"q\",\"transactionId\":\"" + t + "\"}");
  return out;
}

void wait_until_queued(const PushCombiner& combiner, std::size_t n) {
  ASSERT_TRUE(test_support::eventually([&] { return combiner.waiting() >= n; }));
  ASSERT_EQ(combiner.waiting(), n);
}

}  // namespace

TEST(PushCombiner, AnIdleRequestCallsAloneAtOnce) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 4);
  const auto rows = submit_items(combiner, items({"a", "b"}), anonymous_origin());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(fake.calls().size(), 1u);
  EXPECT_EQ(combiner.stats().combined_requests, 0u);
}

TEST(PushCombiner, RequestsArrivingDuringABusyCallShareTheNextAndAreSplitBack) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a0"}), anonymous_origin()); });
  fake.wait_entered(1);
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b0", "b1"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c0", "c1", "c2"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();

  EXPECT_EQ(first.get().size(), 1u);
  auto rows_b = second.get();
  auto rows_c = third.get();
  ASSERT_EQ(rows_b.size(), 2u);
  ASSERT_EQ(rows_c.size(), 3u);
  for (const auto& row : rows_b) EXPECT_EQ(row.transaction_id, "b" + std::to_string(row.idx));
  for (const auto& row : rows_c) EXPECT_EQ(row.transaction_id, "c" + std::to_string(row.idx));

  const auto calls = fake.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(calls[1]).size(), 5u);
  EXPECT_EQ(combiner.stats().combined_requests, 2u);
}

TEST(PushCombiner, ACombinedCallNeverExceedsMaxItems) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 5, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b0", "b1", "b2"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c0", "c1", "c2"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();
  first.get();
  EXPECT_EQ(second.get().size(), 3u);
  EXPECT_EQ(third.get().size(), 3u);
  const auto calls = fake.calls();
  ASSERT_EQ(calls.size(), 3u);  // 3 + 3 > 5: b and c went separately
  for (const auto& call : calls) EXPECT_LE(nlohmann::json::parse(call).size(), 5u);
}

TEST(PushCombiner, ACombinedCallStaysWithinItsByteBoundAndALargerRequestGoesAlone) {
  FakePushCall fake;
  const auto padded = [](const std::string& txid, std::size_t bytes) {
    std::string item = "{\"queue\":\"q\",\"transactionId\":\"" + txid + "\",\"payload\":\"";
    item += std::string(bytes > item.size() + 2 ? bytes - item.size() - 2 : 0, 'x');
    return std::vector<std::string>{item + "\"}"};
  };
  const auto b = padded("b", 400), c = padded("c", 400), d = padded("d", 1500), e = padded("e", 100);
  PushCombiner combiner(std::ref(fake), transient, 1000, 1, nullptr, 1000);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  std::vector<std::future<std::vector<db::PushRow>>> rest;
  std::size_t queued = 0;
  for (const auto* request : {&b, &c, &d, &e}) {
    rest.push_back(std::async(std::launch::async, [&, request] { return submit_items(combiner, *request, anonymous_origin()); }));
    wait_until_queued(combiner, ++queued);
  }
  fake.release();
  first.get();
  for (auto& f : rest) EXPECT_EQ(f.get().size(), 1u);
  const auto calls = fake.calls();
  ASSERT_EQ(calls.size(), 4u);  // a; b+c (800 bytes); d alone (1500 > 1000); e (FIFO: it does not overtake d)
  EXPECT_EQ(nlohmann::json::parse(calls[1]).size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(calls[2]).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(calls[2])[0].at("transactionId"), "d");
  EXPECT_EQ(nlohmann::json::parse(calls[3])[0].at("transactionId"), "e");
  // The items plus the array brackets and comma.
  EXPECT_LE(calls[1].size(), 1000u + 3u);
  EXPECT_LE(calls[3].size(), 1000u + 3u);
}

TEST(PushCombiner, DifferentProducersAreNotCombinedAndDoNotWaitForEachOthersSlot) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  // One call slot, busy: a request that could not share it makes its own call at once.
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b"}), db::PushOrigin{Tenant::default_tenant(), std::string("alice")}); });
  fake.wait_entered(2);
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c"}), db::PushOrigin{Tenant::default_tenant(), std::string("bob")}); });
  fake.wait_entered(3);
  EXPECT_EQ(combiner.waiting(), 0u);
  fake.release();
  first.get();
  second.get();
  third.get();
  EXPECT_EQ(fake.calls().size(), 3u);
}

TEST(PushCombiner, DifferentTenantsAreNotCombinedAndEachCallCarriesItsOrigin) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  const db::PushOrigin acme{Tenant("acme"), std::string("alice")};
  const db::PushOrigin globex{Tenant("globex"), std::string("alice")};
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), acme); });
  fake.wait_entered(1);
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b"}), acme); });
  wait_until_queued(combiner, 1);  // acme's one slot is busy
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c"}), globex); });
  fake.wait_entered(2);  // globex has a slot of its own
  auto fourth = std::async(std::launch::async, [&] { return submit_items(combiner, items({"d"}), acme); });
  wait_until_queued(combiner, 2);
  fake.release();
  first.get();
  second.get();
  third.get();
  fourth.get();
  const std::vector<db::PushOrigin> origins = fake.origins();
  ASSERT_EQ(origins.size(), 3u);  // b and d (same origin) shared a call; c did not join it
  EXPECT_EQ(origins[0], acme);
  EXPECT_EQ(origins[1], globex);
  EXPECT_EQ(origins[2], acme);
  EXPECT_EQ(nlohmann::json::parse(fake.calls()[2]).size(), 2u);
}

TEST(PushCombiner, APermanentFailureOfACombinedCallIsRetriedPerRequest) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  auto good = std::async(std::launch::async, [&] { return submit_items(combiner, items({"g0", "g1"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto bad = std::async(std::launch::async, [&] { return submit_items(combiner, items({"bad"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();
  first.get();
  EXPECT_EQ(good.get().size(), 2u);
  try {
    bad.get();
    FAIL() << "the bad request must fail";
  } catch (const db::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "22023");
  }
  // first, the failed combined call, then good and bad alone
  EXPECT_EQ(fake.calls().size(), 4u);
  EXPECT_EQ(combiner.stats().solo_retries, 2u);
}

TEST(PushCombiner, ATransientFailureFailsEveryParticipantWithoutRetry) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  auto one = std::async(std::launch::async, [&] { return submit_items(combiner, items({"x"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto two = std::async(std::launch::async, [&] { return submit_items(combiner, items({"down"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();
  first.get();
  EXPECT_THROW(one.get(), db::DbError);
  EXPECT_THROW(two.get(), db::DbError);
  EXPECT_EQ(fake.calls().size(), 2u);
  EXPECT_EQ(combiner.stats().solo_retries, 0u);
}

TEST(PushCombiner, ManyConcurrentRequestsAllGetTheirOwnRows) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 50, 2);
  std::vector<std::future<bool>> results;
  for (int r = 0; r < 40; ++r) {
    results.push_back(std::async(std::launch::async, [&, r] {
      std::vector<std::string> mine;
      for (int i = 0; i < 5; ++i) {
        mine.push_back("{\"transactionId\":\"r" + std::to_string(r) + "-" + std::to_string(i) + "\"}");
      }
      const auto rows = submit_items(combiner, mine, anonymous_origin());
      if (rows.size() != 5) return false;
      for (const auto& row : rows) {
        if (row.transaction_id != "r" + std::to_string(r) + "-" + std::to_string(row.idx)) return false;
      }
      return true;
    }));
  }
  for (auto& f : results) EXPECT_TRUE(f.get());
  for (const auto& call : fake.calls()) EXPECT_LE(nlohmann::json::parse(call).size(), 50u);
}

TEST(PushCombiner, FollowersWaitingOnARunningCallSurviveAnEmptyQueue) {
  // Regression: with a free call slot, a follower whose request is already
  // inside another leader's call must not inspect the (empty) queue.
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 2);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b"}), anonymous_origin()); });
  fake.wait_entered(2);  // both slots busy
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto fourth = std::async(std::launch::async, [&] { return submit_items(combiner, items({"d"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();
  EXPECT_EQ(first.get().size(), 1u);
  EXPECT_EQ(second.get().size(), 1u);
  EXPECT_EQ(third.get().size(), 1u);
  EXPECT_EQ(fourth.get().size(), 1u);
}

TEST(PushCombiner, ARowForAnItemNobodySentFailsEveryParticipantInsteadOfBeingSkipped) {
  FakePushCall fake;
  PushCombiner combiner(std::ref(fake), transient, 1000, 1);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a0"}), anonymous_origin()); });
  fake.wait_entered(1);
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"stray"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c0"}), anonymous_origin()); });
  wait_until_queued(combiner, 2);
  fake.release();

  EXPECT_EQ(first.get().size(), 1u);
  for (auto* request : {&second, &third}) {
    try {
      request->get();
      ADD_FAILURE() << "a combined call with an out-of-range row must fail";
    } catch (const db::DbError& e) {
      EXPECT_EQ(e.sqlstate(), "XX000");
      EXPECT_FALSE(e.transient());
      EXPECT_NE(std::string(e.what()).find("outside the 2 items sent"), std::string::npos) << e.what();
    }
  }
}

// ----------------------------------------------------------------- admission

namespace {

flow::FlowLimits push_lane(int slots, int queue, std::chrono::milliseconds wait) {
  flow::FlowLimits l;
  l.total_slots = 4;
  for (const flow::Lane lane : flow::kWakeOrder) l[lane] = flow::LaneLimits{4, 4, 10s};
  l[flow::Lane::Push] = flow::LaneLimits{slots, queue, wait};
  return l;
}

int status_of_refusal(const std::function<void()>& push) {
  try {
    push();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TooManyRequests);
    EXPECT_GE(e.retry_after_s(), 1);
    return 429;
  }
  return 0;
}

}  // namespace

TEST(PushCombinerAdmission, OneSlotStillCombinesEveryRequestQueuedBehindTheCall) {
  FakePushCall fake;
  flow::Arbiter arbiter(push_lane(1, 10, 10s), util::real_clock());
  PushCombiner combiner(std::ref(fake), transient, 1000, 4, &arbiter);
  fake.block();
  auto first = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  // The second leader waits for the only slot; requests behind it ride its call.
  auto second = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b"}), anonymous_origin()); });
  while (arbiter.snapshot()[flow::index_of(flow::Lane::Push)].waiting == 0) std::this_thread::yield();
  auto third = std::async(std::launch::async, [&] { return submit_items(combiner, items({"c"}), anonymous_origin()); });
  wait_until_queued(combiner, 1);  // the waiting leader is the arbiter's, not counted here
  fake.release();
  first.get();
  EXPECT_EQ(second.get().size(), 1u);
  EXPECT_EQ(third.get().size(), 1u);
  ASSERT_EQ(fake.calls().size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(fake.calls()[1]).size(), 2u);
  EXPECT_EQ(arbiter.snapshot()[flow::index_of(flow::Lane::Push)].granted, 2u);
  EXPECT_EQ(arbiter.snapshot()[flow::index_of(flow::Lane::Push)].in_use, 0);
}

TEST(PushCombinerAdmission, AFullQueueRefusesWithoutCallingTheDatabase) {
  FakePushCall fake;
  flow::Arbiter arbiter(push_lane(1, 0, 10s), util::real_clock());
  PushCombiner combiner(std::ref(fake), transient, 1000, 1, &arbiter);
  // Idle: a request that leads at once never queues, even with a queue bound of 0.
  EXPECT_EQ(submit_items(combiner, items({"a"}), anonymous_origin()).size(), 1u);
  fake.block();
  auto busy = std::async(std::launch::async, [&] { return submit_items(combiner, items({"b"}), anonymous_origin()); });
  fake.wait_entered(2);
  EXPECT_EQ(status_of_refusal([&] { submit_items(combiner, items({"c"}), anonymous_origin()); }), 429);
  fake.release();
  busy.get();
  EXPECT_EQ(fake.calls().size(), 2u);
  EXPECT_EQ(arbiter.snapshot()[flow::index_of(flow::Lane::Push)].rejected_queue_full, 1u);
  EXPECT_EQ(combiner.waiting(), 0u);
}

TEST(PushCombinerAdmission, ARequestThatRidesNoCallWithinTheWaitBoundIsRefused) {
  FakePushCall fake;
  flow::Arbiter arbiter(push_lane(1, 10, 30ms), util::real_clock());
  PushCombiner combiner(std::ref(fake), transient, 1000, 1, &arbiter);
  fake.block();
  auto busy = std::async(std::launch::async, [&] { return submit_items(combiner, items({"a"}), anonymous_origin()); });
  fake.wait_entered(1);
  EXPECT_EQ(status_of_refusal([&] { submit_items(combiner, items({"b"}), anonymous_origin()); }), 429);
  EXPECT_EQ(combiner.waiting(), 0u);
  fake.release();
  busy.get();
  EXPECT_EQ(fake.calls().size(), 1u);
  EXPECT_EQ(arbiter.snapshot()[flow::index_of(flow::Lane::Push)].rejected_timeout, 1u);
  // The lane recovers: the next push is stored.
  EXPECT_EQ(submit_items(combiner, items({"c"}), anonymous_origin()).size(), 1u);
}

// Leaders, followers and solo retries after a permanent failure, all through one Push slot: every
// request ends (no slot is held while waiting for a call, nor the other way round) and the slot is free after.
TEST(PushCombinerAdmission, ManyRequestsAndSoloRetriesThroughOneSlotAllEnd) {
  FakePushCall fake;
  flow::Arbiter arbiter(push_lane(1, 1000, 30s), util::real_clock());
  PushCombiner combiner(std::ref(fake), transient, 50, 2, &arbiter);
  std::vector<std::future<int>> results;
  for (int r = 0; r < 40; ++r) {
    results.push_back(std::async(std::launch::async, [&, r] {
      const std::string txid = r % 7 == 0 ? "bad" : "r" + std::to_string(r);
      try {
        return static_cast<int>(submit_items(combiner, items({txid}), anonymous_origin()).size());
      } catch (const db::DbError&) {
        return -1;
      }
    }));
  }
  int failed = 0;
  for (auto& f : results) {
    const int rows = f.get();
    if (rows < 0) ++failed;
    else EXPECT_EQ(rows, 1);
  }
  EXPECT_EQ(failed, 6);  // r = 0, 7, 14, 21, 28, 35
  const flow::LaneSnapshot push = arbiter.snapshot()[flow::index_of(flow::Lane::Push)];
  EXPECT_EQ(push.in_use, 0);
  EXPECT_EQ(push.waiting, 0);
  EXPECT_EQ(push.granted, fake.calls().size());
}
