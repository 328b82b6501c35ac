#include "spool/spool.h"

#include <gtest/gtest.h>

#include "../support/eventually.h"
#include "../support/table_default.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;
using test_support::advance_until;
using test_support::eventually;

constexpr auto kFlushInterval = std::chrono::milliseconds(5);

// Makes `cycles` drain cycles due, one after the other: the clock moves to the
// next deadline only once the loop has run the previous cycle and slept again.
void run_cycles(ManualClock& clock, int cycles) {
  for (int i = 0; i < cycles; ++i) ASSERT_TRUE(eventually([&] { return clock.advance_to_next_deadline(); }));
}

SpoolOptions options_in(const fs::path& dir) {
  SpoolOptions o;
  o.dir = (dir / "buffers").string();
  o.flush_interval = kFlushInterval;
  return o;
}

TEST(SpoolDrainLoop, DrainsInTheBackgroundPausesAndStops) {
  TempDir dir;
  FakeStore store;
  ManualClock clock;
  Spool spool(options_in(dir.path()), store, clock);
  spool.start_drain();
  EXPECT_EQ(spool.append(make_events("q", "a", 3)), std::vector<bool>(3, true));
  ASSERT_TRUE(advance_until(clock, [&] { return spool.stats().pending_events == 0; }));
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"a0", "a1", "a2"}));

  spool.set_maintenance(true);
  spool.append(make_events("q", "m", 2));
  run_cycles(clock, 10);
  EXPECT_EQ(spool.stats().pending_events, 2u) << "maintenance accumulates";
  EXPECT_EQ(store.stored_events().size(), 3u);

  spool.set_maintenance(false);
  ASSERT_TRUE(eventually([&] { return spool.stats().pending_events == 0; }));
  EXPECT_EQ(store.stored_events().size(), 5u);
  spool.stop_drain();
  spool.stop_drain();  // idempotent
  spool.append(make_events("q", "after-stop", 1));
  clock.advance(10 * kFlushInterval);
  EXPECT_EQ(clock.timed_waiters(), 0u) << "no loop left to run a cycle";
  EXPECT_EQ(spool.stats().pending_events, 1u);
}

TEST(Spool, BootCountsAndRecoversWhatAPreviousProcessLeft) {
  TempDir dir;
  FakeStore store;
  ManualClock clock;
  {
    FakeStore unreachable;
    unreachable.respond = [](const auto&) { return ReplayOutcome::transient("down"); };
    Spool first(options_in(dir.path()), unreachable, clock);
    first.append(make_events("q", "old", 4));
  }  // the destructor finalizes the active file
  Spool second(options_in(dir.path()), store, clock);
  EXPECT_EQ(second.stats().pending_events, 4u);
  EXPECT_EQ(second.stats().finalized_files, 1u);
  const RecoverySummary s = second.recover_at_startup();
  EXPECT_EQ(s.stop, RecoverySummary::Stop::Completed);
  EXPECT_EQ(second.stats().pending_events, 0u);
  EXPECT_EQ(store.stored_events().size(), 4u);
}

TEST(Spool, UsesTheRequestedDirectoryWhenItIsUsable) {
  TempDir dir;
  FakeStore store;
  ManualClock clock;
  Spool spool(options_in(dir.path()), store, clock);
  EXPECT_EQ(spool.directory().path, dir.path() / "buffers");
  EXPECT_FALSE(spool.directory().fell_back);
}

TEST(SpoolOptions, DefaultsAreTheVariableTables) {
  const SpoolOptions options;
  EXPECT_EQ(options.dir, queen::test::table_default_text("FILE_BUFFER_DIR"));
  EXPECT_EQ(options.flush_interval.count(), queen::test::table_default("FILE_BUFFER_FLUSH_MS"));
  EXPECT_EQ(options.events_per_file, static_cast<std::size_t>(queen::test::table_default("FILE_BUFFER_EVENTS_PER_FILE")));
  EXPECT_EQ(SpoolWriterOptions{}.events_per_file, options.events_per_file);
  EXPECT_EQ(options.drain.max_batch, static_cast<std::size_t>(queen::test::table_default("FILE_BUFFER_MAX_BATCH")));
  EXPECT_EQ(options.drain.max_batch_bytes,
            static_cast<std::uint64_t>(queen::test::table_default("FILE_BUFFER_MAX_BATCH_BYTES")));
  EXPECT_EQ(options.drain.poison_attempts,
            static_cast<unsigned>(queen::test::table_default("FILE_BUFFER_POISON_ATTEMPTS")));
}

}  // namespace
}  // namespace queen::spool
