#include "spool/spool_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <thread>

#include "spool/spool_directory.h"
#include "spool/spool_ledger.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;

SpoolWriterOptions options_for(const fs::path& dir, std::size_t per_file = 10000,
                               config::FsyncMode fsync = config::FsyncMode::Off) {
  SpoolWriterOptions o;
  o.dir = dir;
  o.events_per_file = per_file;
  o.fsync = fsync;
  return o;
}

std::vector<SpoolEvent> decode_files(const fs::path& dir, const std::vector<std::string>& names) {
  std::vector<SpoolEvent> all;
  for (const auto& name : names) {
    const DecodeResult r = decode_records(read_bytes(dir / name));
    EXPECT_FALSE(r.torn_tail) << name << ": " << r.tail_reason;
    all.insert(all.end(), r.events.begin(), r.events.end());
  }
  return all;
}

TEST(SpoolWriter, AppendWritesOneActiveFileThatDecodes) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path()), ledger);
  const auto events = make_events("orders", "t", 3);
  EXPECT_EQ(writer.append(events), std::vector<bool>(3, true));

  const auto tmp = names_with_extension(dir.path(), ".tmp");
  ASSERT_EQ(tmp.size(), 1u);
  EXPECT_TRUE(parse_file_name(tmp[0]).has_value()) << tmp[0];
  EXPECT_TRUE(names_with_extension(dir.path(), ".buf").empty());
  EXPECT_EQ(decode_files(dir.path(), tmp), events);

  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 3u);
  EXPECT_EQ(s.active_files, 1u);
  EXPECT_EQ(s.finalized_files, 0u);
  EXPECT_EQ(s.bytes, fs::file_size(dir.path() / tmp[0]));
  EXPECT_FALSE(s.last_append_failed);
}

TEST(SpoolWriter, FinalizeRenamesTmpToBufOnce) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path()), ledger);
  EXPECT_FALSE(writer.finalize_active());  // nothing active yet
  writer.append(make_events("q", "t", 2));
  const std::string stem = stem_of(names_with_extension(dir.path(), ".tmp").at(0));
  EXPECT_TRUE(writer.finalize_active());
  EXPECT_FALSE(writer.finalize_active());
  EXPECT_TRUE(names_with_extension(dir.path(), ".tmp").empty());
  EXPECT_EQ(names_with_extension(dir.path(), ".buf"), std::vector<std::string>{stem + ".buf"});
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.finalized_files, 1u);
  EXPECT_EQ(s.active_files, 0u);
  EXPECT_EQ(s.pending_events, 2u);
}

TEST(SpoolWriter, RotatesAfterEventsPerFileWithinOneAppend) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path(), 3), ledger);
  const auto events = make_events("q", "t", 7);
  EXPECT_EQ(writer.append(events), std::vector<bool>(7, true));
  const auto bufs = names_with_extension(dir.path(), ".buf");
  const auto tmps = names_with_extension(dir.path(), ".tmp");
  ASSERT_EQ(bufs.size(), 2u);
  ASSERT_EQ(tmps.size(), 1u);
  EXPECT_EQ(decode_records(read_bytes(dir.path() / bufs[0])).events.size(), 3u);
  EXPECT_EQ(decode_records(read_bytes(dir.path() / bufs[1])).events.size(), 3u);
  EXPECT_EQ(decode_records(read_bytes(dir.path() / tmps[0])).events.size(), 1u);
  // Lexical order of all files is append order.
  std::vector<std::string> all = bufs;
  all.push_back(tmps[0]);
  sort_fifo(all);
  EXPECT_EQ(decode_files(dir.path(), all), events);
  EXPECT_EQ(ledger.snapshot().finalized_files, 2u);
}

TEST(SpoolWriter, RotatesAcrossAppends) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path(), 2), ledger);
  writer.append(make_events("q", "a", 1));
  EXPECT_TRUE(names_with_extension(dir.path(), ".buf").empty());
  writer.append(make_events("q", "b", 1));
  EXPECT_EQ(names_with_extension(dir.path(), ".buf").size(), 1u);
  EXPECT_TRUE(names_with_extension(dir.path(), ".tmp").empty());
  writer.append(make_events("q", "c", 1));
  EXPECT_EQ(names_with_extension(dir.path(), ".tmp").size(), 1u);
}

TEST(SpoolWriter, AnUnencodableEventFailsAloneAndTheOthersAreStored) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path()), ledger);
  auto events = make_events("q", "t", 3);
  events[1].payload_json = "{not json";
  EXPECT_EQ(writer.append(events), (std::vector<bool>{true, false, true}));
  const auto stored = decode_files(dir.path(), names_with_extension(dir.path(), ".tmp"));
  EXPECT_EQ(txids(stored), (std::vector<std::string>{"t0", "t2"}));
  EXPECT_EQ(ledger.snapshot().pending_events, 2u);
  EXPECT_TRUE(ledger.snapshot().last_append_failed);
}

// A write that runs out of room half way must be cut back: the file keeps
// decoding to exactly the events reported stored, with no torn tail.
TEST(SpoolWriter, AShortWriteIsCutBackAndReportedFailed) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path()), ledger);
  const auto first = make_events("q", "ok", 2);
  ASSERT_EQ(writer.append(first), std::vector<bool>(2, true));
  const fs::path tmp = dir.path() / names_with_extension(dir.path(), ".tmp").at(0);
  const auto size_before = fs::file_size(tmp);

  // Cap the file size a little past the current end: the next write gets a
  // partial write and then EFBIG, like a disk filling up mid-record.
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* previous_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit capped = saved;
  capped.rlim_cur = size_before + 20;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &capped), 0);
  const auto result = writer.append(make_events("q", "big", 3));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, previous_handler);

  EXPECT_EQ(result, std::vector<bool>(3, false));
  EXPECT_EQ(fs::file_size(tmp), size_before);
  const DecodeResult r = decode_records(read_bytes(tmp));
  EXPECT_FALSE(r.torn_tail) << r.tail_reason;
  EXPECT_EQ(r.events, first);
  EXPECT_TRUE(ledger.snapshot().last_append_failed);
  EXPECT_EQ(ledger.snapshot().pending_events, 2u);

  // Room again: appends work and land after the good records.
  EXPECT_EQ(writer.append(make_events("q", "later", 1)), std::vector<bool>{true});
  EXPECT_EQ(txids(decode_records(read_bytes(tmp)).events), (std::vector<std::string>{"ok0", "ok1", "later0"}));
  EXPECT_FALSE(ledger.snapshot().last_append_failed);
}

TEST(SpoolWriter, NamesKeepFifoOrderWhenTheClockStepsBack) {
  TempDir dir;
  SpoolLedger ledger;
  auto options = options_for(dir.path(), 1);
  std::vector<std::uint64_t> clock = {5000, 4000, 4000, 3000};
  std::size_t tick = 0;
  options.now_epoch_ms = [&] { return clock[std::min(tick++, clock.size() - 1)]; };
  SpoolWriter writer(options, ledger);
  for (int i = 0; i < 4; ++i) writer.append({make_event("q", "Default", "e" + std::to_string(i))});
  const auto bufs = names_with_extension(dir.path(), ".buf");
  ASSERT_EQ(bufs.size(), 4u);
  EXPECT_EQ(txids(decode_files(dir.path(), bufs)), (std::vector<std::string>{"e0", "e1", "e2", "e3"}));
}

TEST(SpoolWriter, NewFilesSortAfterFilesAlreadyOnDiskAndInFailed) {
  TempDir dir;
  fs::create_directories(failed_directory(dir.path()));
  write_buf_file(dir.path(), {9000000000000ull, 5}, make_events("q", "old", 1));
  write_buf_file(failed_directory(dir.path()), {9000000000001ull, 0}, make_events("q", "bad", 1));
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path()), ledger);
  writer.append(make_events("q", "new", 1));
  writer.finalize_active();
  const auto bufs = names_with_extension(dir.path(), ".buf");
  ASSERT_EQ(bufs.size(), 2u);
  EXPECT_EQ(bufs[0], finalized_file_name({9000000000000ull, 5}));
  EXPECT_GT(bufs[1], finalized_file_name({9000000000001ull, 0}));
}

TEST(SpoolWriter, BatchFsyncModeWritesTheSameRecords) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path(), 2, config::FsyncMode::Batch), ledger);
  const auto events = make_events("q", "t", 5);
  EXPECT_EQ(writer.append(events), std::vector<bool>(5, true));
  writer.finalize_active();
  EXPECT_EQ(decode_files(dir.path(), names_with_extension(dir.path(), ".buf")), events);
}

TEST(SpoolWriter, ConcurrentAppendsNeverInterleaveRecordsAndKeepEachCallersOrder) {
  TempDir dir;
  SpoolLedger ledger;
  SpoolWriter writer(options_for(dir.path(), 100), ledger);
  constexpr int kThreads = 4;
  constexpr int kCalls = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&writer, t] {
      for (int c = 0; c < kCalls; ++c) {
        const std::string prefix = std::to_string(t) + "-" + std::to_string(c) + "-";
        writer.append(make_events("q" + std::to_string(t), prefix, 5));
      }
    });
  }
  for (auto& th : threads) th.join();
  writer.finalize_active();
  const auto all = decode_files(dir.path(), names_with_extension(dir.path(), ".buf"));
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kCalls * 5));
  // Per thread, events appear in the order that thread appended them.
  std::vector<int> next(kThreads, 0);
  for (const auto& e : all) {
    const int t = std::stoi(e.queue.substr(1));
    const int seq = next[static_cast<std::size_t>(t)]++;
    EXPECT_EQ(e.transaction_id, std::to_string(t) + "-" + std::to_string(seq / 5) + "-" + std::to_string(seq % 5));
  }
  EXPECT_EQ(ledger.snapshot().pending_events, all.size());
}

TEST(SpoolDirectory, PrepareCreatesTheDirectoryAndFailedSubdirectory) {
  TempDir root;
  const fs::path wanted = root.path() / "a" / "buffers";
  const SpoolDirectory d = prepare_spool_directory(wanted.string());
  EXPECT_FALSE(d.fell_back);
  EXPECT_EQ(d.path, wanted);
  EXPECT_TRUE(fs::is_directory(wanted / "failed"));
}

TEST(SpoolDirectory, FallsBackToAPerUserTempDirectoryWhenTheRequestedOneCannotBeCreated) {
  TempDir root;
  write_bytes(root.path() / "a-file", "x");
  const std::string impossible = (root.path() / "a-file" / "buffers").string();
  const SpoolDirectory d = prepare_spool_directory(impossible);
  EXPECT_TRUE(d.fell_back);
  EXPECT_EQ(d.requested, impossible);
  EXPECT_FALSE(d.fallback_reason.empty());
  EXPECT_EQ(d.path, per_user_fallback_directory());
  EXPECT_NE(d.path.filename().string().find(std::to_string(::getuid())), std::string::npos);
  EXPECT_TRUE(fs::is_directory(d.path / "failed"));
}

TEST(SpoolDirectory, ListingsSeeOnlyTheRequestedExtensionInTheTopDirectoryInFifoOrder) {
  TempDir dir;
  fs::create_directories(failed_directory(dir.path()));
  write_buf_file(dir.path(), {2000, 0}, make_events("q", "b", 1));
  write_buf_file(dir.path(), {1000, 7}, make_events("q", "a", 1));
  write_buf_file(failed_directory(dir.path()), {500, 0}, make_events("q", "x", 1));
  write_bytes(dir.path() / "notes.txt", "hello");
  write_bytes(dir.path() / (file_stem({3000, 0}) + ".tmp"), "");
  const auto bufs = list_spool_files(dir.path(), kFinalizedExtension);
  ASSERT_EQ(bufs.size(), 2u);
  EXPECT_EQ(bufs[0].filename(), finalized_file_name({1000, 7}));
  EXPECT_EQ(bufs[1].filename(), finalized_file_name({2000, 0}));
  EXPECT_EQ(list_spool_files(dir.path(), kActiveExtension).size(), 1u);
}

}  // namespace
}  // namespace queen::spool
