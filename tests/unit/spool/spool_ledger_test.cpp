#include "spool/spool_ledger.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "spool/spool_directory.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(SpoolLedger, PendingIsAppendedMinusReplayedMinusQuarantined) {
  SpoolLedger ledger;
  ledger.record_append("f1", 5, 500);
  ledger.record_append("f1", 3, 300);
  ledger.record_append("f2", 4, 400);
  EXPECT_EQ(ledger.pending_events(), 12u);
  ledger.record_finalized("f1");
  ledger.record_replayed("f1", 6);
  EXPECT_EQ(ledger.pending_events(), 6u);
  ledger.record_quarantined("f2", 400);
  SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 2u);
  EXPECT_EQ(s.failed_events, 4u);
  EXPECT_EQ(s.failed_files, 1u);
  EXPECT_EQ(s.failed_bytes, 400u);
  EXPECT_EQ(s.finalized_files, 1u);
  EXPECT_EQ(s.active_files, 0u);
  EXPECT_EQ(s.bytes, 800u);
  EXPECT_EQ(s.appended_total, 12u);
  EXPECT_EQ(s.replayed_total, 6u);
  EXPECT_EQ(s.quarantined_total, 4u);
  // Removing a file drops whatever it still counted (e.g. records that proved unreadable).
  ledger.record_removed("f1");
  s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 0u);
  EXPECT_EQ(s.finalized_files, 0u);
  EXPECT_EQ(s.bytes, 0u);
}

TEST(SpoolLedger, ADeletedInsteadOfQuarantinedFileCountsFailedEventsButNoFailedFile) {
  SpoolLedger ledger;
  ledger.record_append("f", 2, 100);
  ledger.record_quarantined("f", 0);
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.failed_events, 2u);
  EXPECT_EQ(s.failed_files, 0u);
  EXPECT_EQ(s.pending_events, 0u);
}

TEST(SpoolLedger, TheBootInventoryCountsRecordsOnDiskAndInFailed) {
  TempDir dir;
  fs::create_directories(failed_directory(dir.path()));
  const fs::path buf = write_buf_file(dir.path(), {1000, 0}, make_events("q", "a", 3));
  const std::string tmp_bytes = encode_all(make_events("q", "b", 2)) + "torn";
  write_bytes(dir.path() / active_file_name({2000, 0}), tmp_bytes);
  const fs::path dead = write_buf_file(failed_directory(dir.path()), {500, 0}, make_events("q", "x", 4));
  write_bytes(dir.path() / "ignored.txt", "not counted");

  SpoolLedger ledger;
  inventory_spool_directory(dir.path(), ledger);
  const SpoolStats s = ledger.snapshot();
  EXPECT_EQ(s.pending_events, 5u);
  EXPECT_EQ(s.finalized_files, 1u);
  EXPECT_EQ(s.active_files, 1u);
  EXPECT_EQ(s.bytes, fs::file_size(buf) + tmp_bytes.size());
  EXPECT_EQ(s.failed_events, 4u);
  EXPECT_EQ(s.failed_files, 1u);
  EXPECT_EQ(s.failed_bytes, fs::file_size(dead));
}

TEST(SpoolLedger, DbHealthyIsAFlagOthersCanSet) {
  SpoolLedger ledger;
  EXPECT_TRUE(ledger.snapshot().db_healthy);
  ledger.set_db_healthy(false);
  EXPECT_FALSE(ledger.db_healthy());
  EXPECT_FALSE(ledger.snapshot().db_healthy);
}

TEST(SpoolLedger, EnterAndLeaveTransitionsAreLoggedOnceEach) {
  std::ostringstream captured;
  auto logger = std::make_shared<spdlog::logger>("spool", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
  logger->set_level(spdlog::level::info);
  spdlog::drop("spool");
  spdlog::register_logger(logger);

  SpoolLedger ledger;
  ledger.record_append("f", 1, 10);
  ledger.record_append("f", 4, 40);  // already in spool mode: no second "entering"
  ledger.record_replayed("f", 2);
  ledger.record_replayed("f", 3);  // back to zero
  ledger.record_replayed("f", 1);  // nothing left: no second "leaving"
  ledger.record_append("g", 1, 10);  // a new outage
  spdlog::drop("spool");

  const std::string log = captured.str();
  EXPECT_EQ(count_of(log, "entering spool mode"), 2u) << log;
  EXPECT_EQ(count_of(log, "leaving spool mode"), 1u) << log;
  EXPECT_LT(log.find("entering spool mode"), log.find("leaving spool mode"));
}

}  // namespace
}  // namespace queen::spool
