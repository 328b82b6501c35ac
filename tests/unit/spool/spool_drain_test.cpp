#include "spool/spool_drain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <tuple>
#include <memory>
#include <thread>

#include "spool/spool_directory.h"
#include "spool/spool_ledger.h"
#include "spool/spool_writer.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;
using Result = CycleReport::Result;

struct DrainFixture : ::testing::Test {
  TempDir dir;
  SpoolLedger ledger;
  FakeStore store;
  ManualClock clock;
  std::unique_ptr<SpoolWriter> writer;
  std::unique_ptr<SpoolDrain> drain;

  void SetUp() override {
    fs::create_directories(failed_directory(dir.path()));
    make_drain({});
  }

  void make_drain(SpoolDrainOptions options) {
    drain.reset();
    writer.reset();
    SpoolWriterOptions wo;
    wo.dir = dir.path();
    wo.events_per_file = 10000;
    writer = std::make_unique<SpoolWriter>(wo, ledger);
    drain = std::make_unique<SpoolDrain>(dir.path(), options, store, ledger, writer.get(), clock);
  }

  // One finalized file per call, each later in FIFO order than the previous.
  fs::path add_file(const std::vector<SpoolEvent>& events) {
    writer->append(events);
    writer->finalize_active();
    return dir.path() / names_with_extension(dir.path(), ".buf").back();
  }

  std::vector<std::string> bufs() const { return names_with_extension(dir.path(), ".buf"); }
  std::vector<std::string> quarantined() const { return names_with_extension(failed_directory(dir.path()), ".buf"); }
};

ReplayOutcome fail_queue(const std::vector<SpoolEvent>& batch, const std::string& queue, ReplayOutcome::Kind kind) {
  if (batch.front().queue == queue) return {kind, "rejected " + queue};
  return ReplayOutcome::ok();
}

using GroupTxids = std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>>;

GroupTxids txids_per_group(const std::vector<SpoolEvent>& events) {
  GroupTxids out;
  for (const auto& e : events) out[{e.tenant.name(), e.queue, e.partition}].push_back(e.transaction_id);
  return out;
}

TEST_F(DrainFixture, ReplaysFilesAndDeletesThem) {
  const auto a = make_events("q", "a", 3);
  const auto b = make_events("q", "b", 2);
  add_file(a);
  add_file(b);
  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.files_replayed, 2u);
  EXPECT_EQ(r.events_replayed, 5u);
  EXPECT_TRUE(bufs().empty());
  std::vector<SpoolEvent> expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  EXPECT_EQ(store.stored_events(), expected);
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 0u);
  EXPECT_EQ(s.finalized_files, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.replayed_total, 5u);
}

TEST_F(DrainFixture, ACycleFinalizesTheActiveFileFirst) {
  writer->append(make_events("q", "live", 2));
  ASSERT_TRUE(bufs().empty());
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"live0", "live1"}));
  EXPECT_TRUE(names_with_extension(dir.path(), ".tmp").empty());
  EXPECT_EQ(drain->run_cycle().result, Result::Idle);
}

TEST_F(DrainFixture, ReplaysOldestFileFirst) {
  // Written out of order on purpose: names, not creation order, decide.
  write_buf_file(dir.path(), {3000, 0}, {make_event("q", "Default", "third")});
  write_buf_file(dir.path(), {1000, 0}, {make_event("q", "Default", "first")});
  write_buf_file(dir.path(), {2000, 1}, {make_event("q", "Default", "second")});
  drain->run_cycle();
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"first", "second", "third"}));
}

// Each group's events are contiguous inside a batch (one segment per partition and tenant).
void expect_contiguous_groups(const std::vector<SpoolEvent>& batch) {
  std::vector<ReplayGroupKey> segments;
  for (const auto& e : batch) {
    const ReplayGroupKey key = ReplayGroupKey::of(e);
    if (segments.empty() || !(segments.back() == key)) {
      EXPECT_EQ(std::find(segments.begin(), segments.end(), key), segments.end()) << "a group split inside a batch";
      segments.push_back(key);
    }
  }
}

TEST_F(DrainFixture, BatchesHoldAtMostMaxBatchEventsWithEachGroupContiguousAndInFileOrder) {
  SpoolDrainOptions options;
  options.max_batch = 100;
  make_drain(options);
  // Interleave three groups; two share queue and partition but not the tenant.
  std::vector<SpoolEvent> events;
  for (int i = 0; i < 250; ++i) {
    events.push_back(make_event("orders", "p1", "a" + std::to_string(i), Tenant("acme")));
    if (i % 5 == 0) events.push_back(make_event("orders", "p2", "b" + std::to_string(i)));
    if (i % 3 == 0) events.push_back(make_event("orders", "p1", "c" + std::to_string(i)));
  }
  add_file(events);
  drain->run_cycle();

  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>> replayed_per_group;
  for (const auto& batch : store.stored_batches()) {
    ASSERT_FALSE(batch.empty());
    EXPECT_LE(batch.size(), 100u);
    expect_contiguous_groups(batch);
    for (const auto& e : batch) replayed_per_group[{e.tenant.name(), e.queue, e.partition}].push_back(e.transaction_id);
  }
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>> written_per_group;
  for (const auto& e : events) written_per_group[{e.tenant.name(), e.queue, e.partition}].push_back(e.transaction_id);
  EXPECT_EQ(replayed_per_group, written_per_group);
  EXPECT_EQ(replayed_per_group.size(), 3u);
  // 384 events (250 acme, 50 of p2, 84 of p1) in four batches: 100, 100, 100, 84; a batch carries several groups.
  EXPECT_EQ(store.stored_batches().size(), 4u);
}

TEST_F(DrainFixture, TransientFailureKeepsTheFileMarksUnhealthyAndEndsTheCycle) {
  const fs::path first = add_file(make_events("q", "a", 2));
  add_file(make_events("q", "b", 2));
  store.respond = [](const auto&) { return ReplayOutcome::transient("connection refused"); };
  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::TransientFailure);
  EXPECT_EQ(r.error, "connection refused");
  EXPECT_EQ(store.calls(), 1);
  EXPECT_EQ(bufs().size(), 2u);
  EXPECT_TRUE(fs::exists(first));
  EXPECT_FALSE(ledger.db_healthy());
  EXPECT_EQ(ledger.snapshot().pending_events, 4u);
  EXPECT_EQ(drain->consecutive_transient_failures(), 1u);

  store.respond = nullptr;  // the database is back
  drain->run_cycle();       // unhealthy: one file only
  EXPECT_TRUE(ledger.db_healthy());
  EXPECT_EQ(bufs().size(), 1u);
  EXPECT_EQ(drain->consecutive_transient_failures(), 0u);
}

TEST_F(DrainFixture, TenConsecutiveTransientFailuresStartAFiveSecondCooldown) {
  add_file(make_events("q", "a", 1));
  store.respond = [](const auto&) { return ReplayOutcome::transient("down"); };
  for (int i = 1; i <= 9; ++i) {
    EXPECT_EQ(drain->run_cycle().result, Result::TransientFailure);
    EXPECT_FALSE(drain->cooling_down()) << i;
  }
  EXPECT_EQ(drain->run_cycle().result, Result::TransientFailure);  // the 10th
  EXPECT_TRUE(drain->cooling_down());
  EXPECT_EQ(drain->consecutive_transient_failures(), 0u);  // reset when the cooldown starts
  const int calls = store.calls();
  EXPECT_EQ(calls, 10);

  EXPECT_EQ(drain->run_cycle().result, Result::CoolingDown);
  clock.advance(std::chrono::milliseconds(4999));
  EXPECT_EQ(drain->run_cycle().result, Result::CoolingDown);
  EXPECT_EQ(store.calls(), calls);
  clock.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(drain->run_cycle().result, Result::TransientFailure);
  EXPECT_EQ(store.calls(), calls + 1);
  EXPECT_EQ(drain->consecutive_transient_failures(), 1u);
}

TEST_F(DrainFixture, APoisonFileIsQuarantinedAfterExactlyFiveAttemptsThenNewerFilesDrain) {
  const fs::path poison = add_file(make_events("poison", "p", 1));
  add_file(make_events("q", "good", 2));
  store.respond = [](const auto& batch) { return fail_queue(batch, "poison", ReplayOutcome::Kind::Permanent); };
  for (unsigned attempt = 1; attempt <= 4; ++attempt) {
    const CycleReport r = drain->run_cycle();
    EXPECT_EQ(r.result, Result::PermanentFailure) << attempt;
    EXPECT_EQ(drain->head_permanent_attempts(), attempt);
    EXPECT_TRUE(fs::exists(poison)) << attempt;
    EXPECT_TRUE(store.stored_events().empty()) << "the head blocks newer files";
  }
  const CycleReport r = drain->run_cycle();  // the 5th attempt
  EXPECT_EQ(r.files_quarantined, 1u);
  EXPECT_EQ(r.files_replayed, 1u);
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_FALSE(fs::exists(poison));
  EXPECT_EQ(quarantined(), std::vector<std::string>{poison.filename().string()}) << "a one-event file moves as it is";
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"good0", "good1"}));
  EXPECT_TRUE(bufs().empty());
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 0u);
  EXPECT_EQ(s.failed_events, 1u);
  EXPECT_EQ(s.failed_files, 1u);
  EXPECT_EQ(s.failed_bytes, fs::file_size(failed_directory(dir.path()) / poison.filename()));
  EXPECT_EQ(drain->head_permanent_attempts(), 0u);
}

ReplayOutcome fail_txid(const std::vector<SpoolEvent>& batch, const std::string& txid, const ReplayOutcome& failure) {
  const bool hit = std::any_of(batch.begin(), batch.end(), [&](const auto& e) { return e.transaction_id == txid; });
  return hit ? failure : ReplayOutcome::ok();
}

TEST_F(DrainFixture, ARefusedBatchIsReplayedEventByEventAndOnlyThePoisonEventIsQuarantined) {
  const auto events = make_events("q", "e", 10);
  const fs::path file = add_file(events);
  const std::string stem = stem_of(file.filename().string());
  add_file(make_events("q", "later", 2));
  store.respond = [](const auto& batch) { return fail_txid(batch, "e4", ReplayOutcome::permanent("22P05 bad")); };

  // Cycle 1: the batch of 10 fails whole; nothing counted yet, its events go alone from now on.
  CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::PermanentFailure);
  EXPECT_EQ(drain->head_permanent_attempts(), 0u);
  EXPECT_TRUE(store.stored_events().empty());
  // Cycles 2-5: e0..e3 are stored alone, then e4 fails attempts 1..4.
  for (unsigned attempt = 1; attempt <= 4; ++attempt) {
    r = drain->run_cycle();
    EXPECT_EQ(r.result, Result::PermanentFailure) << attempt;
    EXPECT_EQ(drain->head_permanent_attempts(), attempt);
  }
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"e0", "e1", "e2", "e3"}));
  EXPECT_EQ(ledger.snapshot().pending_events, 8u);
  // Cycle 6: the 5th failure quarantines e4 alone; the rest of the file and the next file drain in the same cycle.
  r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.events_quarantined, 1u);
  EXPECT_EQ(r.files_quarantined, 0u);
  EXPECT_EQ(txids(store.stored_events()),
            (std::vector<std::string>{"e0", "e1", "e2", "e3", "e5", "e6", "e7", "e8", "e9", "later0", "later1"}));
  EXPECT_TRUE(bufs().empty());
  const std::string kept = stem + ".event-4.buf";
  EXPECT_EQ(quarantined(), std::vector<std::string>{kept});
  EXPECT_EQ(read_bytes(failed_directory(dir.path()) / kept), encode_record(events[4]))
      << "the event's record, byte for byte";
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 0u);
  EXPECT_EQ(s.failed_events, 1u);
  EXPECT_EQ(s.failed_files, 1u);
  EXPECT_EQ(s.failed_bytes, encode_record(events[4]).size());
}

TEST_F(DrainFixture, ABatchFailingWhileTheDatabaseAnswersIsASuspectQuarantinedAfterPoisonAttempts) {
  SpoolDrainOptions options;
  options.poison_attempts = 3;
  make_drain(options);
  add_file(make_events("q", "e", 3));
  add_file(make_events("other-tenant", "t", 2));
  const ReplayOutcome dropped = ReplayOutcome::transient_while_answering("server closed the connection");
  store.respond = [&](const auto& batch) { return fail_txid(batch, "e1", dropped); };

  EXPECT_EQ(drain->run_cycle().result, Result::SuspectFailure);  // the batch of 3: events alone from now on
  EXPECT_EQ(drain->run_cycle().result, Result::SuspectFailure);  // e0 stored, e1 attempt 1
  EXPECT_EQ(drain->head_permanent_attempts(), 1u);
  EXPECT_EQ(drain->run_cycle().result, Result::SuspectFailure);  // attempt 2
  EXPECT_TRUE(ledger.db_healthy()) << "a suspect is not an outage";
  EXPECT_EQ(drain->consecutive_transient_failures(), 0u);
  EXPECT_FALSE(drain->cooling_down());
  const CycleReport r = drain->run_cycle();  // attempt 3: quarantined, everything behind it drains
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.events_quarantined, 1u);
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"e0", "e2", "t0", "t1"}));
  EXPECT_EQ(quarantined().size(), 1u);
  EXPECT_EQ(ledger.snapshot().failed_events, 1u);
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
}

TEST_F(DrainFixture, AnOutageNeverQuarantinesHoweverLongItLasts) {
  add_file(make_events("q", "e", 3));
  bool down = true;
  store.respond = [&](const auto&) { return down ? ReplayOutcome::transient("connection refused") : ReplayOutcome::ok(); };
  int failed_cycles = 0;
  for (int cycle = 0; cycle < 200; ++cycle) {
    const CycleReport r = drain->run_cycle();
    if (r.result == Result::TransientFailure) ++failed_cycles;
    clock.advance(std::chrono::seconds(6));  // past every cooldown
  }
  EXPECT_EQ(failed_cycles, 200);
  EXPECT_TRUE(quarantined().empty());
  EXPECT_EQ(bufs().size(), 1u);
  EXPECT_EQ(ledger.snapshot().pending_events, 3u);
  EXPECT_EQ(ledger.snapshot().failed_events, 0u);
  EXPECT_EQ(drain->head_permanent_attempts(), 0u);
  down = false;
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_EQ(store.stored_batches().size(), 1u) << "never split for an outage: still one batch";
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
}

SpoolEvent event_of_bytes(const std::string& partition, const std::string& txid, std::size_t payload_bytes) {
  SpoolEvent e = make_event("big", partition, txid);
  e.payload_json = "\"" + std::string(payload_bytes, 'x') + "\"";
  return e;
}

TEST_F(DrainFixture, LanesTogetherHoldAtMostTheByteBoundAndALargerEventReplaysAlone) {
  constexpr std::size_t kBound = 64 * 1024;
  SpoolDrainOptions options;
  options.max_batch_bytes = kBound;
  options.replay_lanes = 4;
  make_drain(options);
  std::vector<SpoolEvent> events;
  for (int i = 0; i < 40; ++i) {
    const std::string partition = "p" + std::to_string(i % 4);
    // Every 10th event is larger than the bound; the rest are 20 KiB (three fit a call).
    events.push_back(event_of_bytes(partition, "e" + std::to_string(i), i % 10 == 3 ? 3 * kBound : 20 * 1024));
  }
  add_file(events);
  std::mutex mutex;
  std::size_t in_flight_bytes = 0;
  int in_flight_calls = 0;
  bool over_budget = false;
  bool big_not_alone = false;
  store.respond = [&](const std::vector<SpoolEvent>& batch) {
    std::size_t bytes = 0;
    for (const auto& e : batch) bytes += e.payload_json.size();
    {
      std::lock_guard lock(mutex);
      in_flight_bytes += bytes;
      ++in_flight_calls;
      over_budget = over_budget || (in_flight_calls > 1 && in_flight_bytes > kBound + 4096);  // + record headers
      big_not_alone = big_not_alone || (bytes > kBound && (batch.size() != 1 || in_flight_calls != 1));
    }
    std::this_thread::yield();
    std::lock_guard lock(mutex);
    in_flight_bytes -= bytes;
    --in_flight_calls;
    return ReplayOutcome::ok();
  };
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_FALSE(over_budget);
  EXPECT_FALSE(big_not_alone);
  EXPECT_EQ(txids_per_group(store.stored_events()), txids_per_group(events)) << "every event once, in order";
  for (const auto& batch : store.stored_batches()) EXPECT_LE(batch.size(), 3u);
}

TEST_F(DrainFixture, ThePermanentCounterRestartsWhenTheHeadChanges) {
  const fs::path a = add_file(make_events("poison", "a", 1));
  const fs::path b = add_file(make_events("poison", "b", 1));
  store.respond = [](const auto& batch) { return fail_queue(batch, "poison", ReplayOutcome::Kind::Permanent); };
  for (int i = 0; i < 3; ++i) drain->run_cycle();
  EXPECT_EQ(drain->head_permanent_attempts(), 3u);
  fs::remove(a);  // an operator took the head away
  drain->run_cycle();
  EXPECT_EQ(drain->head_permanent_attempts(), 1u);
  for (int i = 0; i < 3; ++i) drain->run_cycle();
  EXPECT_TRUE(fs::exists(b)) << "b has failed 4 times, not 5";
  drain->run_cycle();
  EXPECT_FALSE(fs::exists(b));
  EXPECT_EQ(quarantined().size(), 1u);
}

TEST_F(DrainFixture, ThePermanentCounterRestartsAfterASuccessfulDrain) {
  add_file(make_events("flaky", "a", 1));
  int failures_left = 4;
  store.respond = [&](const auto&) {
    return failures_left-- > 0 ? ReplayOutcome::permanent("constraint") : ReplayOutcome::ok();
  };
  for (int i = 0; i < 4; ++i) drain->run_cycle();
  EXPECT_EQ(drain->head_permanent_attempts(), 4u);
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_EQ(drain->head_permanent_attempts(), 0u);
  EXPECT_TRUE(quarantined().empty());

  const fs::path next = add_file(make_events("poison", "b", 1));
  store.respond = [](const auto&) { return ReplayOutcome::permanent("constraint"); };
  drain->run_cycle();
  EXPECT_EQ(drain->head_permanent_attempts(), 1u);
  EXPECT_TRUE(fs::exists(next));
}

TEST_F(DrainFixture, APermanentFailureEndsTheTransientStreak) {
  add_file(make_events("q", "a", 1));
  store.respond = [](const auto&) { return ReplayOutcome::transient("down"); };
  drain->run_cycle();
  drain->run_cycle();
  EXPECT_EQ(drain->consecutive_transient_failures(), 2u);
  store.respond = [](const auto&) { return ReplayOutcome::permanent("bad"); };
  drain->run_cycle();
  EXPECT_EQ(drain->consecutive_transient_failures(), 0u);
  EXPECT_EQ(drain->head_permanent_attempts(), 1u);
}

TEST_F(DrainFixture, HealthyCyclesReplayTenFilesUnhealthyCyclesOne) {
  for (int i = 0; i < 12; ++i) add_file(make_events("q", "f" + std::to_string(i) + "-", 1));
  CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::FileBudgetReached);
  EXPECT_EQ(r.files_replayed, 10u);
  EXPECT_EQ(bufs().size(), 2u);

  ledger.set_db_healthy(false);
  r = drain->run_cycle();
  EXPECT_EQ(r.files_replayed, 1u);
  EXPECT_EQ(r.result, Result::FileBudgetReached);
  EXPECT_EQ(bufs().size(), 1u);
  EXPECT_TRUE(ledger.db_healthy()) << "a stored batch proves the database is back";
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
}

TEST_F(DrainFixture, AFailedRetryResumesAfterTheBatchesAlreadyStored) {
  SpoolDrainOptions options;
  options.max_batch = 100;
  make_drain(options);
  add_file(make_events("q", "e", 250));  // batches of 100, 100, 50
  int calls = 0;
  store.respond = [&](const auto&) { return ++calls == 3 ? ReplayOutcome::transient("blip") : ReplayOutcome::ok(); };
  EXPECT_EQ(drain->run_cycle().result, Result::TransientFailure);
  EXPECT_EQ(store.stored_events().size(), 200u);
  EXPECT_EQ(ledger.snapshot().pending_events, 50u);

  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.events_replayed, 50u);
  const auto all = store.stored_events();
  ASSERT_EQ(all.size(), 250u) << "no event replayed twice";
  EXPECT_EQ(all.back().transaction_id, "e249");
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
}

// Eight partitions of two tenants, interleaved as concurrent producers write them.
std::vector<SpoolEvent> interleaved_events(int per_partition) {
  std::vector<SpoolEvent> events;
  for (int i = 0; i < per_partition; ++i) {
    for (int p = 0; p < 8; ++p) {
      const std::string tag = "p" + std::to_string(p) + "-" + std::to_string(i);
      events.push_back(make_event("orders", "p" + std::to_string(p), tag, p % 2 == 0 ? Tenant::default_tenant() : Tenant("acme")));
    }
  }
  return events;
}

TEST_F(DrainFixture, LanesStorePartitionsConcurrentlyKeepingTheOrderInsideEach) {
  SpoolDrainOptions options;
  options.max_batch = 10;
  options.replay_lanes = 4;
  make_drain(options);
  const auto events = interleaved_events(57);
  add_file(events);
  // The first call waits (bounded) for a second one to be in flight: only lanes can make that happen.
  std::mutex mutex;
  std::condition_variable changed;
  int in_flight = 0;
  bool overlapped = false;
  store.respond = [&](const auto&) {
    std::unique_lock lock(mutex);
    ++in_flight;
    overlapped = overlapped || in_flight > 1;
    changed.notify_all();
    changed.wait_for(lock, std::chrono::seconds(5), [&] { return overlapped; });
    --in_flight;
    return ReplayOutcome::ok();
  };
  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.events_replayed, events.size());
  EXPECT_TRUE(overlapped);
  for (const auto& batch : store.stored_batches()) {
    EXPECT_LE(batch.size(), 10u);
    expect_contiguous_groups(batch);
  }
  EXPECT_EQ(txids_per_group(store.stored_events()), txids_per_group(events)) << "every event once, in order";
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
  EXPECT_TRUE(bufs().empty());
}

TEST_F(DrainFixture, AFailingLaneStopsTheFileAndTheRetryStoresOnlyTheRest) {
  SpoolDrainOptions options;
  options.max_batch = 10;
  options.replay_lanes = 3;
  make_drain(options);
  const auto events = interleaved_events(35);  // 4 batches per partition
  const fs::path file = add_file(events);
  std::atomic<int> p3_calls{0};
  store.respond = [&](const std::vector<SpoolEvent>& batch) {
    const bool has_p3 = std::any_of(batch.begin(), batch.end(), [](const auto& e) { return e.partition == "p3"; });
    if (has_p3 && ++p3_calls == 2) return ReplayOutcome::transient("blip");
    return ReplayOutcome::ok();
  };
  EXPECT_EQ(drain->run_cycle().result, Result::TransientFailure);
  EXPECT_TRUE(fs::exists(file));
  const std::size_t first_attempt = store.stored_events().size();
  EXPECT_LT(first_attempt, events.size());
  EXPECT_EQ(ledger.snapshot().pending_events, events.size() - first_attempt);
  // p3's lane stopped at its failed batch: what is stored of p3 is a prefix of what was written, in order.
  const auto p3 = std::make_tuple(std::string("acme"), std::string("orders"), std::string("p3"));
  const std::vector<std::string> stored_p3 = txids_per_group(store.stored_events())[p3];
  const std::vector<std::string> written_p3 = txids_per_group(events)[p3];
  ASSERT_GT(stored_p3.size(), 0u);
  ASSERT_LT(stored_p3.size(), written_p3.size());
  EXPECT_TRUE(std::equal(stored_p3.begin(), stored_p3.end(), written_p3.begin()));

  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::Drained);
  EXPECT_EQ(r.events_replayed, events.size() - first_attempt);
  EXPECT_EQ(txids_per_group(store.stored_events()), txids_per_group(events)) << "no batch stored twice, order kept";
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(DrainFixture, PausedDrainDoesNothingNotEvenFinalize) {
  writer->append(make_events("q", "m", 2));
  drain->pause(true);
  EXPECT_TRUE(drain->paused());
  EXPECT_EQ(drain->run_cycle().result, Result::Paused);
  EXPECT_EQ(store.calls(), 0);
  EXPECT_EQ(names_with_extension(dir.path(), ".tmp").size(), 1u);
  drain->pause(false);
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_EQ(store.stored_events().size(), 2u);
}

class CountingGate final : public ReplayGate {
 public:
  struct Permit final : ReplayPermit {
    explicit Permit(int& held) : held_(held) { ++held_; }
    ~Permit() override { --held_; }
    int& held_;
  };
  bool admit_next = true;
  int held = 0;
  int admitted = 0;
  std::unique_ptr<ReplayPermit> admit() override {
    if (!admit_next) return nullptr;
    ++admitted;
    return std::make_unique<Permit>(held);
  }
};

TEST_F(DrainFixture, EachFileTakesAGatePermitAndARefusalEndsTheCycleWithoutFailure) {
  CountingGate gate;
  drain->set_replay_gate(&gate);
  add_file(make_events("q", "a", 1));
  add_file(make_events("q", "b", 1));
  gate.admit_next = false;
  EXPECT_EQ(drain->run_cycle().result, Result::NotAdmitted);
  EXPECT_EQ(store.calls(), 0);
  EXPECT_EQ(drain->head_permanent_attempts(), 0u);
  EXPECT_EQ(drain->consecutive_transient_failures(), 0u);

  gate.admit_next = true;
  std::vector<int> held_during_replay;
  store.respond = [&](const auto&) {
    held_during_replay.push_back(gate.held);
    return ReplayOutcome::ok();
  };
  EXPECT_EQ(drain->run_cycle().result, Result::Drained);
  EXPECT_EQ(gate.admitted, 2);
  EXPECT_EQ(held_during_replay, (std::vector<int>{1, 1}));
  EXPECT_EQ(gate.held, 0);
}

TEST_F(DrainFixture, AnUnreadableFileIsAPermanentFailureAndIsQuarantined) {
  write_bytes(dir.path() / finalized_file_name({1000, 0}), "this is not a spool file at all");
  add_file(make_events("q", "after", 1));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(drain->run_cycle().result, Result::PermanentFailure);
  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.files_quarantined, 1u);
  EXPECT_EQ(quarantined(), std::vector<std::string>{finalized_file_name({1000, 0})});
  EXPECT_EQ(txids(store.stored_events()), std::vector<std::string>{"after0"});
}

TEST_F(DrainFixture, GoodRecordsBeforeDamageAreReplayedOnceAndTheFileIsQuarantined) {
  const auto events = make_events("q", "g", 3);
  write_bytes(dir.path() / finalized_file_name({1000, 0}), encode_all(events) + "garbage-tail");
  for (int i = 0; i < 5; ++i) drain->run_cycle();
  EXPECT_EQ(store.stored_events(), events);
  EXPECT_EQ(quarantined().size(), 1u);
  EXPECT_TRUE(bufs().empty());
}

TEST_F(DrainFixture, AThrowingStoreCountsAsTransientAndKeepsTheFile) {
  add_file(make_events("q", "a", 1));
  store.respond = [](const auto&) -> ReplayOutcome { throw std::runtime_error("pool exhausted"); };
  const CycleReport r = drain->run_cycle();
  EXPECT_EQ(r.result, Result::TransientFailure);
  EXPECT_NE(r.error.find("pool exhausted"), std::string::npos);
  EXPECT_EQ(bufs().size(), 1u);
  EXPECT_FALSE(ledger.db_healthy());
}

TEST_F(DrainFixture, FilesOtherThanBufInTheTopDirectoryAreIgnored) {
  write_bytes(dir.path() / "notes.txt", "x");
  write_buf_file(failed_directory(dir.path()), {1000, 0}, make_events("q", "dead", 1));
  EXPECT_EQ(drain->run_cycle().result, Result::Idle);
  EXPECT_EQ(store.calls(), 0);
  EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
}

}  // namespace
}  // namespace queen::spool
