#include <gtest/gtest.h>

#include "spool/spool_directory.h"
#include "spool/spool_drain.h"
#include "spool/spool_file.h"
#include "spool/spool_ledger.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;
using Stop = RecoverySummary::Stop;

struct RecoveryFixture : ::testing::Test {
  TempDir dir;
  SpoolLedger ledger;
  FakeStore store;
  ManualClock clock;

  void SetUp() override { fs::create_directories(failed_directory(dir.path())); }

  // What the broker does at boot: count what is on disk, then recover.
  RecoverySummary boot_and_recover(std::chrono::milliseconds budget = std::chrono::hours(1),
                                   SpoolDrainOptions options = {}) {
    inventory_spool_directory(dir.path(), ledger);
    SpoolDrain drain(dir.path(), options, store, ledger, nullptr, clock);
    return drain.recover_at_startup(budget);
  }
};

TEST_F(RecoveryFixture, FinalizesLeftoversCutsTornTailsAndReplaysEverythingInOrder) {
  write_buf_file(dir.path(), {1000, 0}, make_events("q", "a", 2));
  write_buf_file(dir.path(), {2000, 0}, make_events("q", "b", 2));
  // The crash happened mid-record in the active file.
  const std::string half_record = encode_record(make_event("q", "Default", "lost")).substr(0, 9);
  write_bytes(dir.path() / active_file_name({3000, 0}), encode_all(make_events("q", "c", 2)) + half_record);
  // A leftover active file that never got a whole record.
  write_bytes(dir.path() / active_file_name({4000, 0}), half_record);

  const RecoverySummary s = boot_and_recover();
  EXPECT_EQ(s.stop, Stop::Completed);
  EXPECT_EQ(s.leftover_files_finalized, 1u);
  EXPECT_EQ(s.torn_tails_cut, 1u);
  EXPECT_EQ(s.files_replayed, 3u);
  EXPECT_EQ(s.events_replayed, 6u);
  EXPECT_EQ(s.files_left, 0u);
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"a0", "a1", "b0", "b1", "c0", "c1"}));
  EXPECT_TRUE(names_with_extension(dir.path(), ".buf").empty());
  EXPECT_TRUE(names_with_extension(dir.path(), ".tmp").empty());
  const SpoolStats stats = ledger.snapshot();
  EXPECT_EQ(stats.pending_events, 0u);
  EXPECT_EQ(stats.bytes, 0u);
  EXPECT_EQ(stats.finalized_files + stats.active_files, 0u);
}

TEST_F(RecoveryFixture, ALeftoverTmpIsCutToItsGoodRecordsBeforeItBecomesDrainable) {
  const auto good = make_events("q", "c", 2);
  const fs::path tmp = dir.path() / active_file_name({3000, 0});
  write_bytes(tmp, encode_all(good) + "\x07\x00");
  const LeftoverFinalizeResult r = finalize_leftover_file(tmp, /*sync=*/true);
  EXPECT_TRUE(r.tail_cut);
  EXPECT_EQ(r.events, 2u);
  EXPECT_FALSE(fs::exists(tmp));
  const DecodeResult d = decode_records(read_bytes(r.finalized_path));
  EXPECT_FALSE(d.torn_tail);
  EXPECT_EQ(d.events, good);
}

TEST_F(RecoveryFixture, StopsOnTheFirstFailureMarksUnhealthyAndLeavesTheRestToTheDrain) {
  write_buf_file(dir.path(), {1000, 0}, make_events("q", "a", 1));
  write_buf_file(dir.path(), {2000, 0}, make_events("down", "b", 1));
  write_buf_file(dir.path(), {3000, 0}, make_events("q", "c", 1));
  store.respond = [](const auto& batch) {
    return batch.front().queue == "down" ? ReplayOutcome::transient("connection refused") : ReplayOutcome::ok();
  };
  const RecoverySummary s = boot_and_recover();
  EXPECT_EQ(s.stop, Stop::Failed);
  EXPECT_EQ(s.error, "connection refused");
  EXPECT_EQ(s.files_replayed, 1u);
  EXPECT_EQ(s.files_left, 2u);
  EXPECT_FALSE(ledger.db_healthy());
  EXPECT_EQ(ledger.snapshot().pending_events, 2u);
  EXPECT_EQ(txids(store.stored_events()), std::vector<std::string>{"a0"});

  // The background drain takes over once the database answers.
  store.respond = nullptr;
  SpoolDrain drain(dir.path(), {}, store, ledger, nullptr, clock);
  drain.run_cycle();  // unhealthy: one file
  drain.run_cycle();
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"a0", "b0", "c0"}));
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
}

TEST_F(RecoveryFixture, APermanentFailureAlsoStopsRecovery) {
  write_buf_file(dir.path(), {1000, 0}, make_events("poison", "a", 1));
  write_buf_file(dir.path(), {2000, 0}, make_events("q", "b", 1));
  store.respond = [](const auto&) { return ReplayOutcome::permanent("check constraint"); };
  const RecoverySummary s = boot_and_recover();
  EXPECT_EQ(s.stop, Stop::Failed);
  EXPECT_EQ(s.files_left, 2u);
  EXPECT_FALSE(ledger.db_healthy());
}

TEST_F(RecoveryFixture, TheDeadlineHandsTheRestToTheDrainWhichResumesWithoutRework) {
  SpoolDrainOptions options;
  options.max_batch = 10;
  write_buf_file(dir.path(), {1000, 0}, make_events("q", "a", 30));  // 3 batches
  write_buf_file(dir.path(), {2000, 0}, make_events("q", "b", 10));
  // Every batch takes 20 minutes: a 30-minute budget ends inside the first file.
  store.respond = [this](const auto&) {
    clock.advance(std::chrono::minutes(20));
    return ReplayOutcome::ok();
  };
  inventory_spool_directory(dir.path(), ledger);
  SpoolDrain drain(dir.path(), options, store, ledger, nullptr, clock);
  const RecoverySummary s = drain.recover_at_startup(std::chrono::minutes(30));
  EXPECT_EQ(s.stop, Stop::Deadline);
  EXPECT_EQ(s.events_replayed, 20u);  // two batches started before the deadline passed
  EXPECT_EQ(s.files_replayed, 0u);
  EXPECT_EQ(s.files_left, 2u);
  EXPECT_TRUE(ledger.db_healthy()) << "a deadline is not a failure";

  drain.run_cycle();
  const auto all = txids(store.stored_events());
  ASSERT_EQ(all.size(), 40u) << "nothing replayed twice";
  EXPECT_EQ(all.front(), "a0");
  EXPECT_EQ(all.back(), "b9");
  EXPECT_EQ(ledger.snapshot().pending_events, 0u);
}

TEST_F(RecoveryFixture, AnEmptyDirectoryCompletesAtOnce) {
  const RecoverySummary s = boot_and_recover();
  EXPECT_EQ(s.stop, Stop::Completed);
  EXPECT_EQ(s.files_replayed, 0u);
  EXPECT_EQ(store.calls(), 0);
}

}  // namespace
}  // namespace queen::spool
