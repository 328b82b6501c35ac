// The ack and pop combiners over the generic Combiner: which requests share a
// call, which call they make (lone procedure or the *_many one), and how the
// rows are split back. Fakes stand in for the database.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "broker/ack_combiner.h"
#include "broker/combiner.h"
#include "broker/pop_combiner.h"
#include "db/db_error.h"
#include "util/clock.h"
#include "../support/eventually.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;

namespace {

// Holds the first call in the database until released, so later requests queue up.
class Gate {
 public:
  void enter() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++entered_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  void wait_entered(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return entered_ >= n; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int entered_ = 0;
  bool open_ = false;
};

const auto transient = db::is_transient_failure;

template <class C>
void wait_until_queued(const C& combiner, std::size_t n) {
  ASSERT_TRUE(test_support::eventually([&] { return combiner.waiting() >= n; }));
  ASSERT_EQ(combiner.waiting(), n);
}

// ------------------------------------------------------------------ acks

// Records the calls; ack_messages answers one successful row per item, ack_many
// one per item of each request, rows deliberately out of order.
struct FakeAcks {
  Gate gate;
  std::mutex mutex;
  std::vector<std::string> lone_calls;
  std::vector<nlohmann::json> many_calls;
  std::vector<std::string> tenants;

  std::vector<db::AckRow> ack(const std::string& acks, const std::optional<std::string>&, const Tenant& tenant) {
    gate.enter();
    std::lock_guard<std::mutex> lock(mutex);
    lone_calls.push_back(acks);
    tenants.push_back(tenant.name());
    std::vector<db::AckRow> rows;
    const auto items = nlohmann::json::parse(acks);
    for (std::size_t i = items.size(); i-- > 0;) rows.push_back(row(static_cast<int>(i), items[i]));
    return rows;
  }
  std::vector<db::CombinedAckRow> ack_many(const std::string& requests, const Tenant& tenant) {
    std::lock_guard<std::mutex> lock(mutex);
    many_calls.push_back(nlohmann::json::parse(requests));
    tenants.push_back(tenant.name());
    std::vector<db::CombinedAckRow> rows;
    const auto& parsed = many_calls.back();
    for (std::size_t r = parsed.size(); r-- > 0;) {
      const auto& acks = parsed[r].at("acks");
      for (std::size_t i = 0; i < acks.size(); ++i) {
        if (acks[i].at("transactionId") == "stray") rows.push_back({static_cast<int>(parsed.size()), {}});
        rows.push_back({static_cast<int>(r), row(static_cast<int>(i), acks[i])});
      }
    }
    return rows;
  }
  static db::AckRow row(int idx, const nlohmann::json& item) {
    db::AckRow row;
    row.idx = idx;
    row.transaction_id = item.at("transactionId").get<std::string>();
    row.success = true;
    return row;
  }
};

// One ack request as the broker submits it.
struct AckRequest {
  std::string acks_json;
  std::size_t items = 0;
  std::vector<std::string> partitions;
  std::optional<std::string> group;
  Tenant tenant;
};

AckRequest acks(std::initializer_list<std::pair<std::string, std::string>> txid_partition,
                std::optional<std::string> group = std::nullopt, Tenant tenant = Tenant::default_tenant()) {
  nlohmann::json array = nlohmann::json::array();
  AckRequest r{"", 0, {}, std::nullopt, std::move(tenant)};
  for (const auto& [txid, partition] : txid_partition) {
    array.push_back({{"transactionId", txid}, {"partitionId", partition}});
    r.partitions.push_back(partition);
  }
  r.acks_json = array.dump();
  r.items = txid_partition.size();
  r.group = std::move(group);
  return r;
}

AckCombiner make_ack_combiner(FakeAcks& fake, int max_items = 1000, std::size_t max_bytes = 0) {
  return AckCombiner([&fake](const std::string& a, const std::optional<std::string>& g,
                             const Tenant& t) { return fake.ack(a, g, t); },
                     [&fake](const std::string& r, const Tenant& t) { return fake.ack_many(r, t); }, transient,
                     max_items, 1, nullptr, max_bytes);
}

using AckOutcome = std::future<std::vector<db::AckRow>>;

// Submits `requests` in order: the first takes the only call slot and is held
// in the database until all the others queue up behind it; then the gate opens.
std::vector<AckOutcome> submit_queued(AckCombiner& combiner, FakeAcks& fake, const std::vector<AckRequest>& requests) {
  std::vector<AckOutcome> outcomes;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const AckRequest& r = requests[i];
    outcomes.push_back(std::async(std::launch::async, [&combiner, &r] {
      return combiner.submit(r.acks_json, r.items, r.partitions, r.group, r.tenant);
    }));
    if (i == 0) {
      fake.gate.wait_entered(1);
    } else {
      wait_until_queued(combiner, i);
    }
  }
  fake.gate.open();
  return outcomes;
}

const std::string kP1 = "0190a8f2-0000-7000-8000-000000000001";
const std::string kP2 = "0190a8f2-0000-7000-8000-000000000002";
const std::string kP3 = "0190a8f2-0000-7000-8000-000000000003";

}  // namespace

TEST(AckCombiner, ALoneRequestCallsAckMessages) {
  FakeAcks fake;
  AckCombiner combiner = make_ack_combiner(fake);
  const std::vector<AckRequest> requests{acks({{"a", kP1}, {"b", kP2}}, std::nullopt, Tenant("acme"))};
  auto outcomes = submit_queued(combiner, fake, requests);
  ASSERT_EQ(outcomes[0].get().size(), 2u);
  EXPECT_EQ(fake.lone_calls.size(), 1u);
  EXPECT_TRUE(fake.many_calls.empty());
  EXPECT_EQ(fake.tenants, std::vector<std::string>{"acme"});
}

TEST(AckCombiner, ACombinedCallStaysWithinItsByteBoundAndALargerRequestGoesAlone) {
  FakeAcks fake;
  const AckRequest first = acks({{"a", kP1}});
  const AckRequest b = acks({{"b", kP2}});
  const AckRequest c = acks({{"c", kP3}});
  // Bound: b and c together fit; d is larger than the bound on its own.
  const std::size_t bound = b.acks_json.size() + c.acks_json.size();
  AckRequest d = acks({{std::string(bound, 'd'), "0190a8f2-0000-7000-8000-000000000004"}});
  const AckRequest e = acks({{"e", "0190a8f2-0000-7000-8000-000000000005"}});
  AckCombiner combiner = make_ack_combiner(fake, 1000, bound);
  const std::vector<AckRequest> requests{first, b, c, d, e};  // outlives the requests in flight
  auto outcomes = submit_queued(combiner, fake, requests);
  for (auto& outcome : outcomes) EXPECT_EQ(outcome.get().size(), 1u);
  // a alone (it led), then b+c in one ack_many, d alone, e alone (FIFO: nothing overtakes d).
  ASSERT_EQ(fake.many_calls.size(), 1u);
  EXPECT_EQ(fake.many_calls[0].size(), 2u);
  ASSERT_EQ(fake.lone_calls.size(), 3u);
  EXPECT_NE(fake.lone_calls[1].find(std::string(bound, 'd')), std::string::npos);
  EXPECT_EQ(combiner.stats().calls, 4u);
}

TEST(AckCombiner, ConcurrentRequestsShareOneAckManyCallEachWithItsGroupAndGetTheirOwnRows) {
  FakeAcks fake;
  AckCombiner combiner = make_ack_combiner(fake);
  const std::vector<AckRequest> requests{acks({{"a", kP1}}), acks({{"b0", kP2}, {"b1", kP2}}),
                                         acks({{"c0", kP3}}, std::string("mailer"))};
  auto outcomes = submit_queued(combiner, fake, requests);

  EXPECT_EQ(outcomes[0].get().size(), 1u);
  const auto rows2 = outcomes[1].get();
  const auto rows3 = outcomes[2].get();
  ASSERT_EQ(rows2.size(), 2u);
  for (const auto& row : rows2) EXPECT_EQ(row.transaction_id, "b" + std::to_string(row.idx));
  ASSERT_EQ(rows3.size(), 1u);
  EXPECT_EQ(rows3[0].transaction_id, "c0");
  EXPECT_EQ(rows3[0].idx, 0);

  ASSERT_EQ(fake.many_calls.size(), 1u);
  const nlohmann::json& call = fake.many_calls[0];
  ASSERT_EQ(call.size(), 2u);
  EXPECT_TRUE(call[0].at("group").is_null());
  EXPECT_EQ(call[1].at("group"), "mailer");
  EXPECT_EQ(call[0].at("acks").size(), 2u);
  EXPECT_EQ(combiner.stats().calls, 2u);
  EXPECT_EQ(combiner.stats().combined_requests, 2u);
}

TEST(AckCombiner, RequestsNamingACommonPartitionNeverShareACall) {
  FakeAcks fake;
  AckCombiner combiner = make_ack_combiner(fake);
  std::string p2_shouted = kP2;
  for (char& c : p2_shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::vector<AckRequest> requests{acks({{"a", kP1}}), acks({{"b", kP2}}),
                                         acks({{"b-again", "{" + p2_shouted + "}"}}),  // kP2 spelled otherwise
                                         acks({{"c", kP3}})};
  for (auto& outcome : submit_queued(combiner, fake, requests)) outcome.get();
  // b and c shared a call; b-again, on b's partition, went alone after it
  ASSERT_EQ(fake.many_calls.size(), 1u);
  EXPECT_EQ(fake.many_calls[0].size(), 2u);
  EXPECT_EQ(fake.many_calls[0][1].at("acks")[0].at("transactionId"), "c");
  EXPECT_EQ(fake.lone_calls.size(), 2u);
}

TEST(AckCombiner, DifferentTenantsNeverShareACallNorWaitForEachOthersSlot) {
  FakeAcks fake;
  AckCombiner combiner = make_ack_combiner(fake);
  const std::vector<AckRequest> requests{acks({{"a", kP1}}), acks({{"b", kP2}}, std::nullopt, Tenant("acme")),
                                         acks({{"c", kP3}}, std::nullopt, Tenant("globex"))};
  std::vector<AckOutcome> outcomes;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const AckRequest& r = requests[i];
    outcomes.push_back(std::async(std::launch::async, [&combiner, &r] {
      return combiner.submit(r.acks_json, r.items, r.partitions, r.group, r.tenant);
    }));
    fake.gate.wait_entered(static_cast<int>(i) + 1);  // its own call at once: the one slot is per tenant
  }
  EXPECT_EQ(combiner.waiting(), 0u);
  fake.gate.open();
  for (auto& outcome : outcomes) outcome.get();
  EXPECT_TRUE(fake.many_calls.empty());
  std::vector<std::string> tenants = fake.tenants;  // the three calls ran at once: any order
  std::sort(tenants.begin(), tenants.end());
  EXPECT_EQ(tenants, (std::vector<std::string>{"", "acme", "globex"}));
}

TEST(AckCombiner, ARowForAnUnknownRequestFailsEveryParticipant) {
  FakeAcks fake;
  AckCombiner combiner = make_ack_combiner(fake);
  const std::vector<AckRequest> requests{acks({{"a", kP1}}), acks({{"stray", kP2}}), acks({{"c", kP3}})};
  auto outcomes = submit_queued(combiner, fake, requests);
  outcomes[0].get();
  EXPECT_THROW(outcomes[1].get(), db::DbError);
  EXPECT_THROW(outcomes[2].get(), db::DbError);
  EXPECT_EQ(combiner.stats().solo_retries, 0u);  // the call happened: it is not repeated
}

// ------------------------------------------------------------------ pops

namespace {

// pop_messages answers one message; pop_many one message per request, the
// last request empty (fewer claimable partitions than requests).
struct FakePops {
  Gate gate;
  std::mutex mutex;
  int lone_calls = 0;
  std::vector<int> many_requests;
  std::vector<db::PopRequest> seen;

  static db::PoppedMessage message(int request, const std::string& queue) {
    db::PoppedMessage m;
    m.lease_id = "lease-" + std::to_string(request);
    m.queue_name = queue;
    m.transaction_id = "m" + std::to_string(request);
    return m;
  }
  std::vector<db::PoppedMessage> pop(const db::PopRequest& request) {
    gate.enter();
    std::lock_guard<std::mutex> lock(mutex);
    ++lone_calls;
    seen.push_back(request);
    return {message(0, request.queue.value_or(""))};
  }
  std::vector<db::CombinedPopRow> pop_many(int requests, const db::PopRequest& request) {
    std::lock_guard<std::mutex> lock(mutex);
    many_requests.push_back(requests);
    seen.push_back(request);
    std::vector<db::CombinedPopRow> rows;
    for (int r = requests - 2; r >= 0; --r) rows.push_back({r, message(r, request.queue.value_or(""))});
    return rows;
  }
};

PopCombiner make_pop_combiner(FakePops& fake, int max_messages = 100) {
  return PopCombiner([&fake](const db::PopRequest& r) { return fake.pop(r); },
                     [&fake](int n, const db::PopRequest& r) { return fake.pop_many(n, r); }, transient,
                     max_messages, 1);
}

db::PopRequest pop_of(const std::string& queue) {
  db::PopRequest r(Tenant::default_tenant());
  r.queue = queue;
  return r;
}

}  // namespace

TEST(PopCombiner, ALoneRequestCallsPopMessages) {
  FakePops fake;
  fake.gate.open();
  PopCombiner combiner = make_pop_combiner(fake);
  const auto messages = combiner.submit(pop_of("q"));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(fake.lone_calls, 1);
  EXPECT_TRUE(fake.many_requests.empty());
}

TEST(PopCombiner, IdenticalRequestsShareOnePopManyAndEachGetsItsOwnRows) {
  FakePops fake;
  PopCombiner combiner = make_pop_combiner(fake);
  auto first = std::async(std::launch::async, [&] { return combiner.submit(pop_of("q")); });
  fake.gate.wait_entered(1);
  std::vector<std::future<std::vector<db::PoppedMessage>>> riders;
  for (std::size_t i = 0; i < 3; ++i) {
    riders.push_back(std::async(std::launch::async, [&] { return combiner.submit(pop_of("q")); }));
    wait_until_queued(combiner, i + 1);
  }
  fake.gate.open();
  first.get();
  std::set<std::string> leases;
  int empty = 0;
  for (auto& rider : riders) {
    const auto messages = rider.get();
    if (messages.empty()) ++empty;
    for (const auto& m : messages) leases.insert(*m.lease_id);
  }
  ASSERT_EQ(fake.many_requests, std::vector<int>{3});
  EXPECT_EQ(leases.size(), 2u);  // two requests served, each with its own lease
  EXPECT_EQ(empty, 1);           // the third found nothing left, like a lone pop that lost the race
  EXPECT_EQ(combiner.stats().combined_requests, 3u);
}

TEST(PopCombiner, RequestsWithAnyDifferentParameterDoNotShareACallNorWaitForEachOthersSlot) {
  FakePops fake;
  PopCombiner combiner = make_pop_combiner(fake);
  auto first = std::async(std::launch::async, [&] { return combiner.submit(pop_of("q")); });
  fake.gate.wait_entered(1);
  db::PopRequest other_batch = pop_of("q");
  other_batch.batch = 2;
  db::PopRequest other_group = pop_of("q");
  other_group.consumer_group = "g";
  db::PopRequest other_tenant = pop_of("q");
  other_tenant.tenant = Tenant("acme");
  const std::vector<db::PopRequest> requests{pop_of("other"), other_batch, other_group, other_tenant};
  std::vector<std::future<std::vector<db::PoppedMessage>>> rest;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    rest.push_back(std::async(std::launch::async, [&, i] { return combiner.submit(requests[i]); }));
    fake.gate.wait_entered(static_cast<int>(i) + 2);  // its own call at once, though the first one is busy
  }
  EXPECT_EQ(combiner.waiting(), 0u);
  fake.gate.open();
  first.get();
  for (auto& f : rest) EXPECT_EQ(f.get().size(), 1u);
  EXPECT_TRUE(fake.many_requests.empty());
  EXPECT_EQ(fake.lone_calls, 5);
}

TEST(PopCombiner, ACombinedCallHoldsAtMostMaxRequests) {
  FakePops fake;
  PopCombiner combiner = make_pop_combiner(fake, 2);
  auto first = std::async(std::launch::async, [&] { return combiner.submit(pop_of("q")); });
  fake.gate.wait_entered(1);
  std::vector<std::future<std::vector<db::PoppedMessage>>> riders;
  for (std::size_t i = 0; i < 5; ++i) {
    riders.push_back(std::async(std::launch::async, [&] { return combiner.submit(pop_of("q")); }));
    wait_until_queued(combiner, i + 1);
  }
  fake.gate.open();
  first.get();
  for (auto& rider : riders) rider.get();
  std::lock_guard<std::mutex> lock(fake.mutex);
  int requests = fake.lone_calls - 1;  // the first call is not one of the riders
  for (const int n : fake.many_requests) {
    EXPECT_LE(n, 2);
    requests += n;
  }
  EXPECT_EQ(requests, 5);
}

TEST(PopCombiner, PopsWhoseBatchesExceedMaxMessagesTogetherDoNotShareACall) {
  FakePops fake;
  PopCombiner combiner = make_pop_combiner(fake, 100);
  db::PopRequest large = pop_of("q");
  large.batch = 60;
  auto first = std::async(std::launch::async, [&] { return combiner.submit(large); });
  fake.gate.wait_entered(1);
  std::vector<std::future<std::vector<db::PoppedMessage>>> riders;
  for (std::size_t i = 0; i < 2; ++i) {
    riders.push_back(std::async(std::launch::async, [&] { return combiner.submit(large); }));
    wait_until_queued(combiner, i + 1);
  }
  fake.gate.open();
  first.get();
  for (auto& rider : riders) rider.get();
  std::lock_guard<std::mutex> lock(fake.mutex);
  EXPECT_TRUE(fake.many_requests.empty());  // 60 + 60 > 100: each ran alone
  EXPECT_EQ(fake.lone_calls, 3);
}

// ------------------------------------------------------ generic Combiner

TEST(Combiner, ASplitThatAnswersTheWrongNumberOfRequestsFailsThemAll) {
  using C = Combiner<int, int, int>;
  C::Hooks hooks{[](const C::Batch&, const int&) { return true; }, [](const int&) { return std::size_t{1}; },
                 [](const C::Batch& batch) { return static_cast<int>(batch.size()); },
                 [](int, const C::Batch&) { return std::vector<int>{}; }, transient, nullptr};
  C combiner(hooks, {10, 1});
  EXPECT_THROW(combiner.submit(7), std::logic_error);
  EXPECT_EQ(combiner.stats().calls, 1u);
}
