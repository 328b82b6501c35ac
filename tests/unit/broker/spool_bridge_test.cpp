#include "broker/spool_bridge.h"
#include "../fakes/procedures_fake.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "broker/broker.h"
#include "broker/encoding.h"
#include "spool/record_codec.h"
#include "broker/pop_wakes.h"
#include "util/uuid.h"
#include "wake/pop_waiters.h"
#include "../spool/spool_test_support.h"
#include "../support/eventually.h"  // TempDir, shared with the spool tests
#include "util/clock.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace cat = queen::db::catalogue;
using queen::spool::testing::TempDir;
using queen::test_support::eventually;

namespace {

// --------------------------------------------------------------- test doubles

// The database as push_messages sees it: a set of stored (queue, partition,
// transactionId) keys, so a replayed event comes back `duplicate`.
class FakeDatabase : public queen::testing::ProceduresFake {
 public:
  std::atomic<bool> down{false};
  std::string fail_sqlstate;             // non-empty: push_messages fails with it
  std::string row_status_override;      // non-empty: every row answers this status
  bool drop_rows = false;                // answer no rows at all
  // Queues with encryptionEnabled: a plaintext item sent keyHeld answers encryption_required, as store_messages does.
  std::set<std::string> encrypted_queues;
  bool stray_row = false;                // add a row for an index past the items sent

  struct Call {
    nlohmann::json items;
    std::optional<std::string> producer_sub;
    std::string tenant;
  };
  std::vector<Call> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::size_t stored_count() const {
    std::lock_guard lock(mutex_);
    return stored_.size();
  }

  using ProceduresFake::call;
  // A live push (the broker's dedup bounds make no difference here) stores as a replay does.
  cat::Answer<cat::PushWithDedup> call(cat::PushWithDedup, const cat::Arguments<cat::PushWithDedup>& args) override {
    const auto& [items_json, producer_sub, tenant, dedup] = args;
    return call(cat::PushMessages{}, cat::Arguments<cat::PushMessages>{items_json, producer_sub, tenant});
  }
  cat::Answer<cat::PushMessages> call(cat::PushMessages, const cat::Arguments<cat::PushMessages>& args) override {
    const auto& [items_json, producer_sub, tenant] = args;
    if (down) throw db::DbError("connection refused", "");
    if (!fail_sqlstate.empty()) throw db::DbError("rejected", fail_sqlstate);
    std::lock_guard lock(mutex_);
    const nlohmann::json items = nlohmann::json::parse(*items_json);
    calls_.push_back({items, producer_sub, tenant.name()});
    std::vector<db::PushRow> rows;
    if (drop_rows) return rows;
    for (std::size_t i = 0; i < items.size(); ++i) {
      db::PushRow row;
      row.idx = static_cast<int>(i);
      row.transaction_id = items[i]["transactionId"].get<std::string>();
      row.queue_name = items[i]["queue"].get<std::string>();
      row.partition_name = items[i]["partition"].get<std::string>();
      const std::string key = row.queue_name + "/" + row.partition_name + "/" + row.transaction_id;
      if (!row_status_override.empty()) {
        row.status = row_status_override;
        row.error = "queue is full";
      } else if (encrypted_queues.count(row.queue_name) > 0 && items[i].value("keyHeld", false) &&
                 !items[i].value("encrypted", false)) {
        row.status = "encryption_required";
      } else {
        row.status = stored_.insert(key).second ? "queued" : "duplicate";
      }
      row.message_id = util::new_uuid_v7();
      rows.push_back(row);
    }
    if (stray_row) {
      db::PushRow stray;
      stray.idx = static_cast<int>(items.size());
      rows.push_back(stray);
    }
    return rows;
  }
  std::chrono::microseconds ping() override {
    if (down) throw db::DbError("connection refused", "");
    return 1us;
  }
  // The list cannot be read: the broker's set of encrypted queues holds only what it learns.
  cat::Answer<cat::EncryptedQueueNames> call(cat::EncryptedQueueNames, const std::tuple<>&) override {
    throw db::DbError("connection refused", "");
  }
  cat::Answer<cat::SetSystemFlag> call(cat::SetSystemFlag, const cat::Arguments<cat::SetSystemFlag>& args) override {
    const auto& [key, enabled] = args;
    if (down) throw db::DbError("connection refused", "");
    std::lock_guard lock(mutex_);
    flags_[*key] = enabled;
    return enabled;
  }
  cat::Answer<cat::GetSystemFlag> call(cat::GetSystemFlag, const cat::Arguments<cat::GetSystemFlag>& args) override {
    if (down) throw db::DbError("connection refused", "");
    std::lock_guard lock(mutex_);
    return flags_[*std::get<0>(args)];
  }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return !down; }

 private:
  mutable std::mutex mutex_;
  std::vector<Call> calls_;
  std::set<std::string> stored_;
  std::map<std::string, bool> flags_;
};

PushItem item(const std::string& queue, const std::string& partition, const std::string& txid,
              const std::string& payload = "{}") {
  PushItem i;
  i.queue = queue;
  i.partition = partition;
  i.transaction_id = txid;
  i.payload_json = payload;
  return i;
}

spool::SpoolEvent event(const std::string& queue, const std::string& txid,
                        std::optional<std::string> producer = std::nullopt) {
  spool::SpoolEvent e(Tenant::default_tenant());
  e.queue = queue;
  e.partition = "Default";
  e.transaction_id = txid;
  e.producer_sub = std::move(producer);
  e.payload_json = R"({"n":1})";
  return e;
}

spool::SpoolOptions spool_options(const TempDir& dir) {
  spool::SpoolOptions o;
  o.dir = dir.path();
  o.flush_interval = 10ms;
  return o;
}

SpoolBridgeOptions fast_bridge_options() {
  SpoolBridgeOptions o;
  o.probe_interval = 10ms;
  o.handoff_wait = 300ms;
  o.handoff_poll = 1ms;
  return o;
}

// ------------------------------------------------------------------ pure parts

TEST(SpoolOptionsFrom, MapsEveryFileBufferSetting) {
  config::SpoolConfig c = config::Config::defaults().spool;
  c.dir = "/srv/spool";
  c.flush_ms = 50;
  c.max_batch = 7;
  c.events_per_file = 42;
  c.fsync = config::FsyncMode::Batch;
  c.replay_lanes = 3;
  c.max_batch_bytes = 1 << 20;
  c.poison_attempts = 9;
  const spool::SpoolOptions o = spool_options_from(c);
  EXPECT_EQ(o.drain.max_batch_bytes, 1u << 20);
  EXPECT_EQ(o.drain.poison_attempts, 9u);
  EXPECT_EQ(o.dir, "/srv/spool");
  EXPECT_EQ(o.flush_interval, 50ms);
  EXPECT_EQ(o.drain.max_batch, 7u);
  EXPECT_EQ(o.drain.replay_lanes, 3u);
  EXPECT_EQ(o.events_per_file, 42u);
  EXPECT_EQ(o.fsync, config::FsyncMode::Batch);
  EXPECT_EQ(o.recovery_budget, std::chrono::hours(1));
}

TEST(SpoolBridgeOptionsFrom, ProbesEveryFlushAndBoundsTheHandoff) {
  config::SpoolConfig c = config::Config::defaults().spool;
  c.flush_ms = 100;
  EXPECT_EQ(spool_bridge_options_from(c).probe_interval, 100ms);
  EXPECT_EQ(spool_bridge_options_from(c).handoff_wait, 2000ms);
  c.flush_ms = 5;
  EXPECT_EQ(spool_bridge_options_from(c).handoff_wait, 500ms);  // floor
}

TEST(ToSpoolEvent, CarriesEverythingReplayNeeds) {
  PushItem i = item("orders", "acct-7", "tx-1", R"({"a":[1,2]})");
  i.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  i.encrypted = true;
  const spool::SpoolEvent e = to_spool_event(i, PushOrigin{Tenant("tenant-a"), std::string("alice")});
  EXPECT_EQ(e.queue, "orders");
  EXPECT_EQ(e.partition, "acct-7");
  EXPECT_EQ(e.transaction_id, "tx-1");
  EXPECT_EQ(e.payload_json, R"({"a":[1,2]})");
  EXPECT_EQ(e.trace_id, i.trace_id);
  EXPECT_EQ(e.producer_sub, std::optional<std::string>("alice"));
  EXPECT_EQ(e.tenant.name(), "tenant-a");
  EXPECT_TRUE(e.encrypted);

  const spool::SpoolEvent plain = to_spool_event(item("q", "Default", "t"), PushOrigin{Tenant::default_tenant(), std::nullopt});
  EXPECT_EQ(plain.tenant.name(), "");
  EXPECT_FALSE(plain.producer_sub.has_value());
  EXPECT_FALSE(plain.encrypted);
}

// Every field of a push item, set to a non-default value: a spooled push must
// reach push_messages exactly as the live push would have sent it.
PushItem item_with_every_field() {
  PushItem i = item("nsq-1", "p", "tx-every", R"({"n":12.50,"s":"\u00e9"})");
  i.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  i.namespace_name = "billing";
  i.task = "render";
  i.deliver_at_ms = 1'900'000'000'123;
  i.encrypted = true;
  return i;
}

bool same_push_item(const PushItem& a, const PushItem& b) {
  return std::tie(a.queue, a.partition, a.payload_json, a.transaction_id, a.trace_id, a.namespace_name, a.task,
                  a.deliver_at_ms, a.encrypted) == std::tie(b.queue, b.partition, b.payload_json, b.transaction_id,
                                                            b.trace_id, b.namespace_name, b.task, b.deliver_at_ms,
                                                            b.encrypted);
}

TEST(SpoolRoundTrip, EveryPushItemFieldSurvivesTheRecordOnDisk) {
  const PushItem original = item_with_every_field();
  const spool::SpoolEvent event = to_spool_event(original, PushOrigin{Tenant("tenant-a"), std::string("alice")});
  const spool::DecodeResult decoded = spool::decode_records(spool::encode_record(event));
  ASSERT_EQ(decoded.events.size(), 1u);
  EXPECT_FALSE(decoded.torn_tail);
  EXPECT_EQ(decoded.events[0], event);
  EXPECT_EQ(origin_of(decoded.events[0]), (PushOrigin{Tenant("tenant-a"), std::string("alice")}));
  const PushItem replayed = push_item_of(decoded.events[0]);
  EXPECT_TRUE(same_push_item(replayed, original));
  // The replay call carries the same JSON item as the live call would.
  EXPECT_EQ(encode_push_items(replay_items(decoded.events, 0, 1)), "[" + encode_push_item(original) + "]");
  const auto parsed = nlohmann::json::parse(encode_push_items(replay_items(decoded.events, 0, 1))).at(0);
  EXPECT_EQ(parsed.at("namespace"), "billing");
  EXPECT_EQ(parsed.at("task"), "render");
  EXPECT_EQ(parsed.at("deliverAt"), 1'900'000'000'123);
  EXPECT_EQ(parsed.at("encrypted"), true);
}

TEST(SpoolRoundTrip, TheDefaultTenantsRecordHasNoTenantAndAnOldRecordReplaysAsTheDefaultTenant) {
  const PushItem original = item("q", "Default", "tx-plain");
  const std::string bytes = spool::encode_record(to_spool_event(original, PushOrigin{Tenant::default_tenant(), std::string("alice")}));
  EXPECT_EQ(bytes.find("tenant"), std::string::npos);
  // The same bytes a single-tenant broker wrote before tenants existed: an event with no tenant set.
  spool::SpoolEvent before = to_spool_event(original, PushOrigin{Tenant::default_tenant(), std::nullopt});
  before.producer_sub = "alice";
  EXPECT_EQ(bytes, spool::encode_record(before));
  const spool::DecodeResult decoded = spool::decode_records(bytes);
  ASSERT_EQ(decoded.events.size(), 1u);
  EXPECT_EQ(origin_of(decoded.events[0]), (PushOrigin{Tenant::default_tenant(), std::string("alice")}));
}

TEST(SpoolRoundTrip, AnItemWithOnlyRequiredFieldsStaysMinimal) {
  const PushItem original = item("q", "Default", "tx-plain");
  const spool::DecodeResult decoded =
      spool::decode_records(spool::encode_record(to_spool_event(original, PushOrigin{Tenant::default_tenant(), std::nullopt})));
  ASSERT_EQ(decoded.events.size(), 1u);
  const PushItem replayed = push_item_of(decoded.events[0]);
  EXPECT_TRUE(same_push_item(replayed, original));
  EXPECT_EQ(encode_push_item(replayed), encode_push_item(original));
}

TEST(PlanSpoolAppends, InRequestDuplicatesShareTheFirstWrite) {
  const std::vector<PushItem> items = {item("q", "p0", "a"), item("q", "p0", "b"), item("q", "p0", "a"),
                                       item("q", "p1", "a"), item("r", "p0", "a"), item("q", "p0", "b")};
  const SpoolPlan plan = plan_spool_appends(items);
  EXPECT_EQ(plan.appended, (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_EQ(plan.twin, (std::vector<std::size_t>{0, 1, 0, 3, 4, 1}));
}

TEST(PlanSpoolAppends, ScheduledItemsAreSpooledWithTheirDeliveryTime) {
  std::vector<PushItem> items = {item("q", "p0", "a"), item("q", "p0", "timer"), item("q", "p0", "timer")};
  items[1].deliver_at_ms = 1'900'000'000'000;
  const SpoolPlan plan = plan_spool_appends(items);
  EXPECT_EQ(plan.appended, (std::vector<std::size_t>{0, 1}));
  const auto results =
      spooled_push_results(items, plan, {true, true}, [] { return std::string("id"); }, "disk full");
  EXPECT_EQ(results[1].status, PushStatus::Buffered);
  EXPECT_EQ(results[2].status, PushStatus::Buffered);  // twin of the scheduled item
  const spool::SpoolEvent event = to_spool_event(items[1], PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_TRUE(event.deliver_at_ms.has_value());
  EXPECT_EQ(*event.deliver_at_ms, 1'900'000'000'000);
  const std::string replayed = encode_push_items(replay_items({event}, 0, 1));
  EXPECT_NE(replayed.find("\"deliverAt\":1900000000000"), std::string::npos) << replayed;
}

TEST(SpooledPushResults, WrittenItemsAreBufferedOthersFailedAndTwinsInherit) {
  const std::vector<PushItem> items = {item("q", "p0", "a"), item("q", "p0", "b"), item("q", "p0", "a"),
                                       item("q", "p0", "b")};
  const SpoolPlan plan = plan_spool_appends(items);
  int minted = 0;
  const auto results = spooled_push_results(
      items, plan, {true, false}, [&] { return "id-" + std::to_string(minted++); }, "disk full");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(minted, 1);  // one provisional id per written event, none for twins or failures

  EXPECT_EQ(results[0].status, PushStatus::Buffered);
  EXPECT_EQ(results[0].message_id, std::optional<std::string>("id-0"));
  EXPECT_FALSE(results[0].error.has_value());

  EXPECT_EQ(results[1].status, PushStatus::Failed);
  EXPECT_EQ(results[1].error, std::optional<std::string>("disk full"));
  EXPECT_FALSE(results[1].message_id.has_value());

  EXPECT_EQ(results[2].status, PushStatus::Buffered);  // twin of 0
  EXPECT_EQ(results[2].message_id, results[0].message_id);
  EXPECT_EQ(results[3].status, PushStatus::Failed);  // twin of 1
  EXPECT_EQ(results[3].error, results[1].error);

  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].index, static_cast<int>(i));
    EXPECT_EQ(results[i].transaction_id, items[i].transaction_id);
    EXPECT_EQ(results[i].queue, "q");
    EXPECT_EQ(results[i].partition, "p0");
  }
}

TEST(OriginRuns, CutsWhereTheSubjectChanges) {
  const std::vector<spool::SpoolEvent> batch = {event("q", "1", "a"), event("q", "2", "a"), event("q", "3"),
                                                event("q", "4", "b"), event("q", "5", "b")};
  using Runs = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(origin_runs(batch), (Runs{{0, 2}, {2, 3}, {3, 5}}));
  EXPECT_EQ(origin_runs({event("q", "1")}), (Runs{{0, 1}}));
  EXPECT_TRUE(origin_runs({}).empty());
}

TEST(OriginRuns, CutsWhereTheTenantChanges) {
  std::vector<spool::SpoolEvent> batch = {event("q", "1", "a"), event("q", "2", "a"), event("q", "3", "a")};
  batch[2].tenant = Tenant("acme");
  using Runs = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(origin_runs(batch), (Runs{{0, 2}, {2, 3}}));
  EXPECT_EQ(origin_of(batch[2]), (PushOrigin{Tenant("acme"), std::string("a")}));
}

TEST(ReplayItems, KeepTransactionIdTraceEncryptedAndPayloadVerbatim) {
  std::vector<spool::SpoolEvent> batch = {event("q\"x", "t-1"), event("q\"x", "t-2")};
  batch[0].trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  batch[1].encrypted = true;
  batch[1].payload_json = R"({"iv":"abc","data":"xyz"})";
  const nlohmann::json items = nlohmann::json::parse(encode_push_items(replay_items(batch, 0, 2)));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["queue"], "q\"x");
  EXPECT_EQ(items[0]["partition"], "Default");
  EXPECT_EQ(items[0]["transactionId"], "t-1");
  EXPECT_EQ(items[0]["traceId"], "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_EQ(items[0]["payload"], nlohmann::json::parse(R"({"n":1})"));
  EXPECT_FALSE(items[0].contains("encrypted"));
  EXPECT_FALSE(items[1].contains("traceId"));
  EXPECT_EQ(items[1]["encrypted"], true);
  EXPECT_EQ(items[1]["payload"]["iv"], "abc");

  EXPECT_EQ(replay_items(batch, 1, 2).size(), 1u);
}

TEST(ReplayItems, DedupKeysNameEachEventOfTheRunInTheOrderOfItsItems) {
  std::vector<spool::SpoolEvent> batch = {event("q1", "t-1"), event("q2", "t-2"), event("q1", "t-3")};
  batch[1].partition = "p-7";
  const std::vector<DedupItem> keys = dedup_items_of(replay_items(batch, 1, 3));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].queue, "q2");
  EXPECT_EQ(keys[0].partition, "p-7");
  EXPECT_EQ(keys[0].transaction_id, "t-2");
  EXPECT_EQ(keys[1].queue, "q1");
  EXPECT_EQ(keys[1].partition, "Default");
  EXPECT_EQ(keys[1].transaction_id, "t-3");
  const nlohmann::json items = nlohmann::json::parse(encode_push_items(replay_items(batch, 1, 3)));
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(items[i]["transactionId"], keys[i].transaction_id);
}

TEST(ReplayOutcomeOf, ClassifiesBySqlstate) {
  using Kind = spool::ReplayOutcome::Kind;
  EXPECT_EQ(replay_outcome_of(db::DbError("connection refused", "")).kind, Kind::Transient);
  EXPECT_EQ(replay_outcome_of(db::DbError("statement timeout", "57014")).kind, Kind::Transient);
  EXPECT_EQ(replay_outcome_of(db::DbError("deadlock", "40P01")).kind, Kind::Transient);
  EXPECT_EQ(replay_outcome_of(db::DbError("too many connections", "53300")).kind, Kind::Transient);
  // A lock timeout is no reason to quarantine accepted messages.
  EXPECT_EQ(replay_outcome_of(db::DbError("lock timeout", "55P03")).kind, Kind::Transient);
  const spool::ReplayOutcome bad = replay_outcome_of(db::DbError("push item 0: traceId must be a UUID", "22023"));
  EXPECT_EQ(bad.kind, Kind::Permanent);
  EXPECT_NE(bad.error.find("22023"), std::string::npos);
  EXPECT_NE(bad.error.find("traceId must be a UUID"), std::string::npos);
  EXPECT_EQ(replay_outcome_of(db::DbError("custom raise", "P0001")).kind, Kind::Permanent);
}

TEST(DecidePushRoute, DatabaseOnlyWhenUpAndNothingSpooled) {
  EXPECT_EQ(decide_push_route(true, 0, true), PushRoute::Database);
  EXPECT_EQ(decide_push_route(true, 0, false), PushRoute::Database);
  EXPECT_EQ(decide_push_route(false, 0, true), PushRoute::Spool);
  EXPECT_EQ(decide_push_route(false, 5, true), PushRoute::Spool);
  EXPECT_EQ(decide_push_route(true, 5, true), PushRoute::WaitForDrain);
  // Paused or cooling down: waiting cannot help, go behind the spooled events at once.
  EXPECT_EQ(decide_push_route(true, 5, false), PushRoute::Spool);
}

// ------------------------------------------------------------------ the bridge

TEST(SpoolBridgeReplay, OneCallPerProducerRunKeepingTransactionIdsAndWakingQueues) {
  TempDir dir;
  FakeDatabase db;
  std::vector<std::set<std::string>> woken;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options(),
                     [&](const std::set<std::string>& queues) { woken.push_back(queues); });

  const std::vector<spool::SpoolEvent> batch = {event("orders", "t1", "alice"), event("orders", "t2", "alice"),
                                                event("orders", "t3")};
  EXPECT_EQ(bridge.replay(batch).kind, spool::ReplayOutcome::Kind::Ok);
  const auto calls = db.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].producer_sub, std::optional<std::string>("alice"));
  EXPECT_EQ(calls[0].items.size(), 2u);
  EXPECT_EQ(calls[0].items[1]["transactionId"], "t2");
  EXPECT_FALSE(calls[1].producer_sub.has_value());
  EXPECT_EQ(calls[0].tenant, "");  // a record without the field replays as the default tenant
  ASSERT_EQ(woken.size(), 1u);
  EXPECT_EQ(woken[0], std::set<std::string>{"orders"});

  // Replayed again (an earlier attempt committed it): duplicates, stored once, nobody woken.
  EXPECT_EQ(bridge.replay(batch).kind, spool::ReplayOutcome::Kind::Ok);
  EXPECT_EQ(db.stored_count(), 3u);
  EXPECT_EQ(woken.size(), 1u);
}

// Pushes of two tenants and three producers over six partitions, spooled one push at a time.
struct MixedPush {
  std::string tenant;
  std::optional<std::string> producer;
  std::string partition;
  std::string txid;
};

std::vector<MixedPush> mixed_pushes() {
  std::vector<MixedPush> pushes;
  const std::optional<std::string> producers[] = {std::string("alice"), std::nullopt, std::string("bob")};
  for (int i = 0; i < 90; ++i) {
    const int partition = i % 6;
    pushes.push_back({partition % 2 == 0 ? "acme" : "", producers[(i / 6) % 3], "p" + std::to_string(partition),
                      "t" + std::to_string(i)});
  }
  return pushes;
}

void spool_each(SpoolBridge& bridge, const std::vector<MixedPush>& pushes) {
  for (const auto& p : pushes)
    bridge.spool_push({item("orders", p.partition, p.txid)}, PushOrigin{Tenant(p.tenant), p.producer},
                      UnstoredReason::DatabaseUnavailable);
}

TEST(SpoolBridgeReplay, LanesOfMixedTenantsAndProducersKeepEachPartitionsOrderAndStoreEachEventOnce) {
  TempDir dir;
  FakeDatabase db;
  spool::SpoolOptions options = spool_options(dir);
  options.drain.max_batch = 7;
  options.drain.replay_lanes = 3;
  SpoolBridge bridge(db, options, fast_bridge_options());
  const std::vector<MixedPush> pushes = mixed_pushes();
  spool_each(bridge, pushes);
  bridge.start();
  ASSERT_TRUE(eventually([&] { return bridge.status().pending == 0; }));

  std::map<std::string, const MixedPush*> by_txid;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> written, stored;
  for (const auto& p : pushes) {
    by_txid[p.txid] = &p;
    written[{p.tenant, p.partition}].push_back(p.txid);
  }
  for (const auto& call : db.calls()) {
    ASSERT_LE(call.items.size(), 7u);
    for (const auto& it : call.items) {
      const MixedPush& p = *by_txid.at(it["transactionId"].get<std::string>());
      EXPECT_EQ(call.tenant, p.tenant) << "one tenant per call";
      EXPECT_EQ(call.producer_sub, p.producer) << "one producer per call";
      stored[{p.tenant, p.partition}].push_back(p.txid);
    }
  }
  EXPECT_EQ(stored, written) << "every event once, each partition in push order";
  EXPECT_EQ(db.stored_count(), pushes.size());

  // The same events spooled again (a crash before the files were deleted): duplicates, nothing stored twice.
  spool_each(bridge, pushes);
  ASSERT_TRUE(eventually([&] { return bridge.status().pending == 0; }));
  EXPECT_EQ(db.stored_count(), pushes.size());
  EXPECT_EQ(bridge.status().failed, 0u);
  bridge.stop();
}

TEST(SpoolBridgeReplay, TransientFailureMarksTheDatabaseUnavailable) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  db.down = true;
  const spool::ReplayOutcome outcome = bridge.replay({event("q", "t1")});
  EXPECT_EQ(outcome.kind, spool::ReplayOutcome::Kind::Transient);
  EXPECT_FALSE(bridge.database_available());
  EXPECT_FALSE(bridge.status().db_healthy);
  EXPECT_EQ(bridge.route_push(), PushRoute::Spool);

  db.down = false;
  EXPECT_EQ(bridge.replay({event("q", "t1")}).kind, spool::ReplayOutcome::Kind::Ok);
  EXPECT_TRUE(bridge.database_available());
  EXPECT_TRUE(bridge.status().db_healthy);
}

TEST(SpoolBridgeReplay, ALockTimeoutIsRetriedLaterWithoutSpoolMode) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  db.fail_sqlstate = "55P03";
  EXPECT_EQ(bridge.replay({event("q", "t1")}).kind, spool::ReplayOutcome::Kind::Transient);  // kept, never quarantined
  EXPECT_TRUE(bridge.database_available());
  EXPECT_EQ(bridge.route_push(), PushRoute::Database);
}

TEST(SpoolBridgeReplay, ACallDroppedWhileTheDatabaseAnswersAPingIsASuspectNotAnOutage) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  db.fail_sqlstate = "08006";  // the connection went with this call; the ping right after succeeds
  const spool::ReplayOutcome dropped = bridge.replay({event("q", "t1")});
  EXPECT_EQ(dropped.kind, spool::ReplayOutcome::Kind::Transient);
  EXPECT_TRUE(dropped.database_answered);
  EXPECT_TRUE(bridge.database_available()) << "pushes must not go to the spool for one batch's failure";
  EXPECT_TRUE(bridge.status().db_healthy);

  // A timeout is contention, not poison: retried as before, never counted toward quarantine.
  db.fail_sqlstate = "57014";
  const spool::ReplayOutcome timed_out = bridge.replay({event("q", "t2")});
  EXPECT_EQ(timed_out.kind, spool::ReplayOutcome::Kind::Transient);
  EXPECT_FALSE(timed_out.database_answered);

  // An outage: the ping fails too.
  db.fail_sqlstate.clear();
  db.down = true;
  const spool::ReplayOutcome down = bridge.replay({event("q", "t3")});
  EXPECT_EQ(down.kind, spool::ReplayOutcome::Kind::Transient);
  EXPECT_FALSE(down.database_answered);
  EXPECT_FALSE(bridge.database_available());
}

TEST(SpoolBridgeReplay, RejectedDataIsPermanentAndKeepsTheDatabaseAvailable) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  db.fail_sqlstate = "22023";
  EXPECT_EQ(bridge.replay({event("q", "t1")}).kind, spool::ReplayOutcome::Kind::Permanent);
  EXPECT_TRUE(bridge.database_available());

  db.fail_sqlstate.clear();
  db.row_status_override = "failed";  // maxSize reached
  const spool::ReplayOutcome full = bridge.replay({event("q", "t2")});
  EXPECT_EQ(full.kind, spool::ReplayOutcome::Kind::Permanent);
  EXPECT_NE(full.error.find("queue is full"), std::string::npos);

  db.row_status_override.clear();
  db.drop_rows = true;  // an item without a result is not known to be stored
  EXPECT_EQ(bridge.replay({event("q", "t3")}).kind, spool::ReplayOutcome::Kind::Permanent);

  db.drop_rows = false;
  db.stray_row = true;  // the SQL and the broker disagree: a defect, never retried as if transient
  const spool::ReplayOutcome stray = bridge.replay({event("q", "t4")});
  EXPECT_EQ(stray.kind, spool::ReplayOutcome::Kind::Permanent);
  EXPECT_NE(stray.error.find("XX000"), std::string::npos) << stray.error;
  EXPECT_TRUE(bridge.database_available());
}

TEST(SpoolBridgePush, SpooledItemsAreBufferedAndCounted) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  const std::vector<PushItem> items = {item("q", "p0", "a"), item("q", "p0", "a"), item("q", "p1", "b")};
  const auto results = bridge.spool_push(items, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::DatabaseUnavailable);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_EQ(r.status, PushStatus::Buffered);
    ASSERT_TRUE(r.message_id.has_value());
    EXPECT_TRUE(util::is_uuid(*r.message_id));
  }
  EXPECT_EQ(bridge.status().pending, 2u);  // the in-request duplicate is not written twice
  EXPECT_TRUE(bridge.status().healthy);
}

TEST(SpoolBridgePush, UnwritableSpoolAnswersFailedWithAnError) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  // A full volume, simulated with a file-size limit (works as root too):
  // the write fails with EFBIG instead of raising SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit tiny = saved;
  tiny.rlim_cur = 16;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tiny), 0);
  const auto results = bridge.spool_push({item("q", "p0", "a")}, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::PushMaintenance);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, PushStatus::Failed);
  ASSERT_TRUE(results[0].error.has_value());
  EXPECT_NE(results[0].error->find("spool write failed"), std::string::npos);
  EXPECT_FALSE(bridge.status().healthy);
}

TEST(SpoolBridgeRouting, ProbeSendsPushesBackOnceTheDatabaseAnswers) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  bridge.start();
  EXPECT_EQ(bridge.route_push(), PushRoute::Database);
  db.down = true;
  bridge.note_database_unavailable("connection refused");
  EXPECT_EQ(bridge.route_push(), PushRoute::Spool);
  EXPECT_FALSE(bridge.status().db_healthy);
  db.down = false;
  EXPECT_TRUE(eventually([&] { return bridge.database_available(); }));
  EXPECT_TRUE(bridge.status().db_healthy);
  EXPECT_EQ(bridge.route_push(), PushRoute::Database);
  bridge.stop();
}

TEST(SpoolBridgeRouting, PushWaitsForTheDrainThenGoesToTheDatabase) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  bridge.spool_push({item("q", "p0", "old")}, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::DatabaseUnavailable);
  ASSERT_EQ(bridge.status().pending, 1u);
  bridge.start();  // the drain replays the spooled event within a few cycles
  EXPECT_EQ(bridge.route_push(), PushRoute::Database);
  EXPECT_EQ(bridge.status().pending, 0u);
  EXPECT_EQ(db.stored_count(), 1u);
  bridge.stop();
}

TEST(SpoolBridgeRouting, PushGoesBehindSpooledEventsWhenTheDrainCannotFinishInTime) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  bridge.spool_push({item("q", "p0", "old")}, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::DatabaseUnavailable);
  // Drain not started: nothing empties the spool.
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(bridge.route_push(), PushRoute::Spool);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 2000ms);
}

TEST(SpoolBridgeMaintenance, AnOlderGenerationNeverUndoesANewerOne) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  bridge.follow_maintenance(true, 2);
  bridge.follow_maintenance(false, 1);  // a racing caller that changed the flag earlier, arriving late
  EXPECT_TRUE(bridge.spool().drain().paused());
  bridge.follow_maintenance(true, 2);  // a repeat of what was followed is ignored too
  EXPECT_TRUE(bridge.spool().drain().paused());
  bridge.follow_maintenance(false, 3);
  EXPECT_FALSE(bridge.spool().drain().paused());
  bridge.follow_maintenance(true);  // generation 0: unordered, always followed
  EXPECT_TRUE(bridge.spool().drain().paused());
}

TEST(SpoolBridgeMaintenance, PausesTheDrainAndResumesIt) {
  TempDir dir;
  FakeDatabase db;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  bridge.start();
  bridge.follow_maintenance(true);
  EXPECT_TRUE(bridge.spool().drain().paused());
  bridge.spool_push({item("q", "p0", "m1"), item("q", "p0", "m2")}, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::PushMaintenance);
  // A cycle that comes due does nothing while paused.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bridge.spool().drain().run_cycle().result, spool::CycleReport::Result::Paused);
  EXPECT_EQ(bridge.status().pending, 2u);
  EXPECT_EQ(db.stored_count(), 0u);
  // Maintenance on: a push never waits for a paused drain.
  EXPECT_EQ(bridge.route_push(), PushRoute::Spool);

  bridge.follow_maintenance(false);
  EXPECT_FALSE(bridge.spool().drain().paused());
  EXPECT_TRUE(eventually([&] { return bridge.status().pending == 0; }));
  EXPECT_EQ(db.stored_count(), 2u);
  bridge.stop();
}

TEST(SpoolBridgeRecovery, MaintenanceAtBootOnlyFinalizesLeftovers) {
  TempDir dir;
  FakeDatabase db;
  {
    SpoolBridge first(db, spool_options(dir), fast_bridge_options());
    first.spool_push({item("q", "p0", "a")}, PushOrigin{Tenant::default_tenant(), std::nullopt}, UnstoredReason::DatabaseUnavailable);
  }
  {
    SpoolBridge second(db, spool_options(dir), fast_bridge_options());
    const spool::RecoverySummary summary = second.recover_at_startup(/*push_maintenance=*/true);
    EXPECT_EQ(summary.files_replayed, 0u);
    EXPECT_EQ(db.stored_count(), 0u);
    EXPECT_EQ(second.status().pending, 1u);
  }
  SpoolBridge third(db, spool_options(dir), fast_bridge_options());
  const spool::RecoverySummary summary = third.recover_at_startup(/*push_maintenance=*/false);
  EXPECT_EQ(summary.stop, spool::RecoverySummary::Stop::Completed);
  EXPECT_EQ(summary.events_replayed, 1u);
  EXPECT_EQ(db.stored_count(), 1u);
  EXPECT_EQ(third.status().pending, 0u);
}

// ------------------------------------------------------- through the broker

config::Config broker_config() {
  config::Config c = config::Config::defaults();
  c.pop.wait_initial_interval_ms = 20;
  c.pop.wait_max_interval_ms = 20;
  c.system.flag_refresh_ms = 60000;
  return c;
}

TEST(BrokerWithSpool, OutagePushesAreBufferedAndReplayedAfterwards) {
  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options(),
                     [&](const std::set<std::string>& queues) { announce_committed(waiters, nullptr, queues); });
  const config::Config config = broker_config();
  MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
  Broker broker(config, db, waiters, metrics, flags, &bridge);

  db.down = true;
  const PushOutcome first = broker.pushes().push({item("q", "p0", "a"), item("q", "p0", "a")},
                                                 PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_EQ(first.items.size(), 2u);
  EXPECT_EQ(first.items[0].status, PushStatus::Buffered);
  EXPECT_EQ(first.items[1].status, PushStatus::Buffered);
  EXPECT_FALSE(first.maintenance_spool_failed);
  EXPECT_FALSE(bridge.database_available());
  EXPECT_EQ(broker.system_admin().spool_status().pending, 1u);
  EXPECT_EQ(broker.gauges().spool_pending, 1u);
  EXPECT_FALSE(broker.gauges().spool_db_healthy);

  db.down = false;
  bridge.start();
  ASSERT_TRUE(eventually([&] { return bridge.database_available(); }));  // the probe noticed
  const PushOutcome second = broker.pushes().push({item("q", "p0", "b")},
                                                  PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_EQ(second.items.size(), 1u);
  EXPECT_EQ(second.items[0].status, PushStatus::Queued);  // after the spooled "a"
  EXPECT_EQ(db.stored_count(), 2u);
  const auto calls = db.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].items[0]["transactionId"], "a");
  EXPECT_EQ(calls[1].items[0]["transactionId"], "b");
  bridge.stop();
  broker.begin_shutdown();
}

TEST(BrokerWithSpool, MaintenanceFollowsTheFlagAndSpoolsEveryPush) {
  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
  const config::Config config = broker_config();
  MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
  Broker broker(config, db, waiters, metrics, flags, &bridge);
  bridge.start();

  broker.system_admin().set_push_maintenance(true);
  EXPECT_TRUE(bridge.spool().drain().paused());
  const PushOutcome out = broker.pushes().push({item("q", "p0", "m")},
                                               PushOrigin{Tenant::default_tenant(), std::nullopt});
  EXPECT_EQ(out.items[0].status, PushStatus::Buffered);
  EXPECT_FALSE(out.maintenance_spool_failed);
  EXPECT_TRUE(db.calls().empty());  // never touched PostgreSQL
  EXPECT_EQ(broker.system_admin().maintenance_status().spool.pending, 1u);

  flags.apply_push(false, "mesh");
  EXPECT_FALSE(bridge.spool().drain().paused());
  EXPECT_TRUE(eventually([&] { return broker.system_admin().spool_status().pending == 0; }));
  EXPECT_EQ(db.stored_count(), 1u);
  bridge.stop();
  broker.begin_shutdown();
}

// ------------------------------------------------- payload encryption at replay

const std::string kEncryptionKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

config::Config keyed_broker_config() {
  config::Config c = broker_config();
  c.encryption_key = kEncryptionKey;
  c.encryption_refresh_ms = 3600000;
  return c;
}

bool is_envelope(const nlohmann::json& payload) { return payload.is_object() && payload.contains("ct"); }

// A spool bridge and the broker that hands it its encryption; the database knows "secret" wants encryption.
struct ReplayingBroker {
  explicit ReplayingBroker(const config::Config& c)
      : config(c),
        bridge(db, spool_options(dir), fast_bridge_options()),
        flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms)) {
    db.encrypted_queues = {"secret"};
    broker.emplace(config, db, waiters, metrics, flags, &bridge);
  }
  ~ReplayingBroker() { stop_broker(); }
  void stop_broker() {
    if (!broker) return;
    broker->begin_shutdown();
    broker.reset();
  }

  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  const config::Config config = config::Config::defaults();
  SpoolBridge bridge;
  MaintenanceFlags flags;
  std::optional<Broker> broker;
};

spool::SpoolEvent acme_event(const std::string& queue, const std::string& txid) {
  spool::SpoolEvent e = event(queue, txid);
  e.tenant = Tenant("acme");
  return e;
}

TEST(BrokerWithSpool, ARequestsOwnTimeoutIsAnswered503AndSpoolsNothing) {
  // Issue 20, item 5: a statement or lock timeout on one tenant's partition
  // fails that push alone; the broker stays out of spool mode.
  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options(), nullptr);
  const config::Config config = broker_config();
  MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
  Broker broker(config, db, waiters, metrics, flags, &bridge);

  for (const char* sqlstate : {"57014", "55P03", "40P01"}) {
    db.fail_sqlstate = sqlstate;
    try {
      broker.pushes().push({item("contended", "p0", std::string("t-") + sqlstate)},
                           PushOrigin{Tenant("acme"), std::nullopt});
      ADD_FAILURE() << sqlstate << ": the push was answered";
    } catch (const BrokerError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unavailable) << sqlstate;
      EXPECT_EQ(e.retry_after_s(), kRequestTransientRetryAfterS) << sqlstate;
      EXPECT_EQ(std::string(e.what()), db::transient_failure_text(sqlstate));
    }
    EXPECT_TRUE(bridge.database_available()) << sqlstate;
    EXPECT_EQ(bridge.route_push(), PushRoute::Database) << sqlstate;
  }
  EXPECT_EQ(broker.system_admin().spool_status().pending, 0u);
  EXPECT_TRUE(broker.system_admin().spool_status().db_healthy);

  // Another tenant's push right after goes straight to the database.
  db.fail_sqlstate.clear();
  const PushOutcome other = broker.pushes().push({item("orders", "p0", "g1")},
                                                 PushOrigin{Tenant("globex"), std::nullopt});
  ASSERT_EQ(other.items.size(), 1u);
  EXPECT_EQ(other.items[0].status, PushStatus::Queued);
  EXPECT_EQ(broker.system_admin().spool_status().pending, 0u);
  broker.begin_shutdown();
}

TEST(BrokerWithSpool, ALostConnectionStillSpools) {
  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  SpoolBridge bridge(db, spool_options(dir), fast_bridge_options(), nullptr);
  const config::Config config = broker_config();
  MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
  Broker broker(config, db, waiters, metrics, flags, &bridge);
  db.fail_sqlstate = "57P01";  // admin shutdown: the session is gone for everyone
  const PushOutcome outcome = broker.pushes().push({item("q", "p0", "a")},
                                                   PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_EQ(outcome.items.size(), 1u);
  EXPECT_EQ(outcome.items[0].status, PushStatus::Buffered);
  EXPECT_FALSE(bridge.database_available());
  broker.begin_shutdown();
}

TEST(SpoolReplayEncryption, APlaintextRecordTheDatabaseRefusesIsSealedAndSentOnce) {
  ReplayingBroker r(keyed_broker_config());  // configured elsewhere: the broker's set does not know "secret"
  EXPECT_EQ(r.bridge.replay({acme_event("secret", "s1"), event("open", "o1")}).kind, spool::ReplayOutcome::Kind::Ok);
  const auto calls = r.db.calls();
  ASSERT_EQ(calls.size(), 3u);  // acme's run (refused, then re-sent sealed), the default tenant's run
  EXPECT_EQ(calls[0].items[0]["keyHeld"], true);
  EXPECT_EQ(calls[1].tenant, "acme");
  EXPECT_EQ(calls[1].items.size(), 1u);
  EXPECT_EQ(calls[1].items[0]["transactionId"], "s1");
  EXPECT_EQ(calls[1].items[0]["encrypted"], true);
  EXPECT_TRUE(is_envelope(calls[1].items[0]["payload"])) << calls[1].items[0];
  EXPECT_EQ(calls[2].items[0]["payload"], nlohmann::json::parse(R"({"n":1})"));  // other queues stay plaintext
  EXPECT_EQ(r.db.stored_count(), 2u);

  // Learned for acme only: the next replay seals acme's record at once; the default tenant's
  // queue of the same name is not in the set.
  EXPECT_EQ(r.bridge.replay({acme_event("secret", "s2"), event("secret", "d1")}).kind,
            spool::ReplayOutcome::Kind::Ok);
  const auto later = r.db.calls();
  ASSERT_EQ(later.size(), 6u);
  EXPECT_EQ(later[3].items[0]["encrypted"], true);
  EXPECT_EQ(later[4].tenant, "");
  EXPECT_EQ(later[4].items[0]["keyHeld"], true);  // refused too (the fake knows queues by name), then sealed
  EXPECT_EQ(later[5].items[0]["encrypted"], true);
}

TEST(SpoolReplayEncryption, WithoutAKeyRecordsReplayAsTheyAre) {
  ReplayingBroker r(broker_config());
  EXPECT_EQ(r.bridge.replay({event("secret", "s1")}).kind, spool::ReplayOutcome::Kind::Ok);
  const auto calls = r.db.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].items[0].contains("keyHeld"));
  EXPECT_FALSE(calls[0].items[0].contains("encrypted"));
}

TEST(SpoolReplayEncryption, OnceTheBrokerIsGoneReplayNoLongerReachesItsEncryption) {
  ReplayingBroker r(keyed_broker_config());
  r.stop_broker();
  // Replay sends the record as it is rather than touch an encryption that no longer exists.
  EXPECT_EQ(r.bridge.replay({event("secret", "s1")}).kind, spool::ReplayOutcome::Kind::Ok);
  ASSERT_EQ(r.db.calls().size(), 1u);
  EXPECT_FALSE(r.db.calls()[0].items[0].contains("keyHeld"));
}

TEST(BrokerWithSpool, StatusAndGaugesNameTheSpoolDirectoryAndTheFallback) {
  TempDir dir;
  FakeDatabase db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  const config::Config config = broker_config();
  {
    SpoolBridge bridge(db, spool_options(dir), fast_bridge_options());
    MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
    Broker broker(config, db, waiters, metrics, flags, &bridge);
    const SpoolStatus status = broker.system_admin().spool_status();
    EXPECT_EQ(status.directory, dir.path().string());
    EXPECT_EQ(status.configured_directory, dir.path().string());
    EXPECT_FALSE(status.directory_fallback);
    EXPECT_EQ(status.fallback_reason, "");
    EXPECT_FALSE(broker.gauges().spool_fallback);
    broker.begin_shutdown();
  }
  // FILE_BUFFER_DIR under a regular file: the per-user fallback (in TMPDIR) is used and named.
  const std::string previous_tmpdir = ::getenv("TMPDIR") != nullptr ? ::getenv("TMPDIR") : "";
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  { std::ofstream(dir.path() / "file") << "x"; }
  spool::SpoolOptions unusable = spool_options(dir);
  unusable.dir = (dir.path() / "file" / "spool").string();
  {
    SpoolBridge bridge(db, unusable, fast_bridge_options());
    MaintenanceFlags flags(db, waiters, &bridge, std::chrono::milliseconds(config.system.flag_refresh_ms));
    Broker broker(config, db, waiters, metrics, flags, &bridge);
    const SpoolStatus status = broker.system_admin().spool_status();
    EXPECT_EQ(status.directory, spool::per_user_fallback_directory().string());
    EXPECT_EQ(status.configured_directory, unusable.dir);
    EXPECT_TRUE(status.directory_fallback);
    EXPECT_NE(status.fallback_reason.find("FILE_BUFFER_DIR " + unusable.dir + " is not usable"), std::string::npos)
        << status.fallback_reason;
    EXPECT_TRUE(broker.gauges().spool_fallback);
    broker.begin_shutdown();
  }
  if (previous_tmpdir.empty()) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", previous_tmpdir.c_str(), 1);
  }
}

}  // namespace
