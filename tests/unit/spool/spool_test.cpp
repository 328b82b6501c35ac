#include "spool/spool.h"

#include <gtest/gtest.h>

#include <thread>

#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;

// Polls `done` for up to two seconds.
template <typename Predicate>
bool eventually(Predicate done) {
  for (int i = 0; i < 400; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

SpoolOptions options_in(const fs::path& dir) {
  SpoolOptions o;
  o.dir = (dir / "buffers").string();
  o.flush_interval = std::chrono::milliseconds(5);
  return o;
}

TEST(SpoolDrainLoop, DrainsInTheBackgroundPausesAndStops) {
  TempDir dir;
  FakeStore store;
  Spool spool(options_in(dir.path()), store);
  spool.start_drain();
  EXPECT_EQ(spool.append(make_events("q", "a", 3)), std::vector<bool>(3, true));
  ASSERT_TRUE(eventually([&] { return spool.stats().pending_events == 0; }));
  EXPECT_EQ(txids(store.stored_events()), (std::vector<std::string>{"a0", "a1", "a2"}));

  spool.set_maintenance(true);
  spool.append(make_events("q", "m", 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // ten intervals
  EXPECT_EQ(spool.stats().pending_events, 2u) << "maintenance accumulates";
  EXPECT_EQ(store.stored_events().size(), 3u);

  spool.set_maintenance(false);
  ASSERT_TRUE(eventually([&] { return spool.stats().pending_events == 0; }));
  EXPECT_EQ(store.stored_events().size(), 5u);
  spool.stop_drain();
  spool.stop_drain();  // idempotent
  spool.append(make_events("q", "after-stop", 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(spool.stats().pending_events, 1u);
}

TEST(Spool, BootCountsAndRecoversWhatAPreviousProcessLeft) {
  TempDir dir;
  FakeStore store;
  {
    FakeStore unreachable;
    unreachable.respond = [](const auto&) { return ReplayOutcome::transient("down"); };
    Spool first(options_in(dir.path()), unreachable);
    first.append(make_events("q", "old", 4));
  }  // the destructor finalizes the active file
  Spool second(options_in(dir.path()), store);
  EXPECT_EQ(second.stats().pending_events, 4u);
  EXPECT_EQ(second.stats().finalized_files, 1u);
  const RecoverySummary s = second.recover_at_startup();
  EXPECT_EQ(s.stop, RecoverySummary::Stop::Completed);
  EXPECT_EQ(second.stats().pending_events, 0u);
  EXPECT_EQ(store.stored_events().size(), 4u);
}

TEST(Spool, DescribeNamesTheDirectoryInUseAndTheSettings) {
  TempDir dir;
  FakeStore store;
  Spool spool(options_in(dir.path()), store);
  const std::string text = spool.describe();
  EXPECT_NE(text.find("dir=" + (dir.path() / "buffers").string()), std::string::npos) << text;
  EXPECT_NE(text.find("max_batch=100"), std::string::npos) << text;
  EXPECT_NE(text.find("events_per_file=10000"), std::string::npos) << text;
  EXPECT_NE(text.find("fsync=off"), std::string::npos) << text;
  EXPECT_EQ(text.find("fallback"), std::string::npos) << text;
  EXPECT_FALSE(spool.directory().fell_back);
}

}  // namespace
}  // namespace queen::spool
