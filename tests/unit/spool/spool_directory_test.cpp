// The choice of the spool directory: FILE_BUFFER_DIR or the per-user fallback, as the boot makes it and as
// --check-config reports it without creating anything.
#include "spool/spool_directory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "spool/spool.h"
#include "spool/spool_lock.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using namespace testing;

void make_regular_file(const fs::path& path) { std::ofstream(path) << "not a directory"; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Sets TMPDIR, where per_user_fallback_directory() lives, for one test.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const fs::path& dir) {
    if (const char* old = ::getenv("TMPDIR")) previous_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (previous_.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", previous_.c_str(), 1);
    }
  }
  ScopedTmpdir(const ScopedTmpdir&) = delete;
  ScopedTmpdir& operator=(const ScopedTmpdir&) = delete;

 private:
  std::string previous_;
};

// ---------------------------------------------------------------- usable, without side effects

TEST(SpoolDirectoryProblem, AWritableDirectoryIsUsable) {
  TempDir dir;
  EXPECT_EQ(spool_directory_problem(dir.path()), "");
}

TEST(SpoolDirectoryProblem, AMissingDirectoryIsUsableWhenItCanBeCreatedAndIsNotCreated) {
  TempDir dir;
  const fs::path missing = dir.path() / "a" / "b" / "spool";
  EXPECT_EQ(spool_directory_problem(missing), "");
  EXPECT_FALSE(fs::exists(dir.path() / "a"));
}

TEST(SpoolDirectoryProblem, APathUnderARegularFileIsNot) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  const std::string problem = spool_directory_problem(dir.path() / "file" / "spool");
  EXPECT_TRUE(contains(problem, (dir.path() / "file").string() + " is not a directory")) << problem;
}

TEST(SpoolDirectoryProblem, ARegularFileIsNot) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  EXPECT_EQ(spool_directory_problem(dir.path() / "file"), (dir.path() / "file").string() + " is not a directory");
}

TEST(SpoolDirectoryProblem, AFailedEntryThatIsAFileIsNot) {
  TempDir dir;
  make_regular_file(failed_directory(dir.path()));
  EXPECT_TRUE(contains(spool_directory_problem(dir.path()), "failed is not a directory"));
}

TEST(SpoolDirectoryProblem, AnEmptyNameIsNot) { EXPECT_EQ(spool_directory_problem(""), "FILE_BUFFER_DIR is empty"); }

// ---------------------------------------------------------------- the choice

TEST(ChooseSpoolDirectory, KeepsAUsableRequestedDirectory) {
  TempDir dir;
  const SpoolDirectory chosen =
      choose_spool_directory((dir.path() / "spool").string(), dir.path() / "fallback", spool_directory_problem);
  EXPECT_EQ(chosen.path, dir.path() / "spool");
  EXPECT_FALSE(chosen.fell_back);
  EXPECT_EQ(chosen.fallback_reason, "");
}

TEST(ChooseSpoolDirectory, FallsBackAndSaysWhy) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  const std::string requested = (dir.path() / "file" / "spool").string();
  const SpoolDirectory chosen = choose_spool_directory(requested, dir.path() / "fallback", spool_directory_problem);
  EXPECT_EQ(chosen.path, dir.path() / "fallback");
  EXPECT_TRUE(chosen.fell_back);
  EXPECT_EQ(chosen.requested, requested);
  EXPECT_TRUE(contains(chosen.fallback_reason, "FILE_BUFFER_DIR " + requested + " is not usable: "))
      << chosen.fallback_reason;
  EXPECT_TRUE(contains(chosen.fallback_reason, "is not a directory")) << chosen.fallback_reason;
}

TEST(ChooseSpoolDirectory, RefusesWhenTheFallbackIsNotUsableEither) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  try {
    choose_spool_directory((dir.path() / "file" / "a").string(), dir.path() / "file" / "b", spool_directory_problem);
    FAIL() << "chose an unusable directory";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "the fallback " + (dir.path() / "file" / "b").string() + " is not usable either"))
        << e.what();
  }
}

TEST(ChooseSpoolDirectory, RefusesAFallbackThatIsASymbolicLink) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  fs::create_directory(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "fallback");
  EXPECT_EQ(fallback_ownership_problem(dir.path() / "fallback"),
            (dir.path() / "fallback").string() + " is a symbolic link");
  EXPECT_THROW(
      choose_spool_directory((dir.path() / "file" / "a").string(), dir.path() / "fallback", spool_directory_problem),
      std::runtime_error);
}

TEST(ChooseSpoolDirectory, AFallbackOfThisUserOrNoneYetPassesTheOwnershipTest) {
  TempDir dir;
  EXPECT_EQ(fallback_ownership_problem(dir.path() / "missing"), "");
  EXPECT_EQ(fallback_ownership_problem(dir.path()), "");
}

TEST(ChooseSpoolDirectory, AnEmptySettingFallsBack) {
  TempDir dir;
  const SpoolDirectory chosen = choose_spool_directory("", dir.path() / "fallback", spool_directory_problem);
  EXPECT_TRUE(chosen.fell_back);
  EXPECT_EQ(chosen.fallback_reason, "FILE_BUFFER_DIR is empty");
}

TEST(PrepareSpoolDirectory, CreatesTheFallbackOwnerOnly) {
  TempDir dir;
  const ScopedTmpdir tmpdir(dir.path());
  make_regular_file(dir.path() / "file");
  const SpoolDirectory chosen = prepare_spool_directory((dir.path() / "file" / "spool").string());
  EXPECT_TRUE(chosen.fell_back);
  EXPECT_EQ(chosen.path, per_user_fallback_directory());
  EXPECT_EQ(chosen.path.parent_path(), dir.path());
  EXPECT_TRUE(fs::is_directory(failed_directory(chosen.path)));
  EXPECT_EQ(fs::status(chosen.path).permissions() & fs::perms::all, fs::perms::owner_all);
}

// ---------------------------------------------------------------- --check-config

TEST(CheckSpoolDirectory, ReportsAUsableSettingAndCreatesNothing) {
  TempDir dir;
  const fs::path requested = dir.path() / "spool";
  const SpoolDirectoryCheck check = check_spool_directory(requested.string(), dir.path() / "fallback");
  EXPECT_EQ(check.lines, std::vector<std::string>{"spool directory: " + requested.string() + " (FILE_BUFFER_DIR)"});
  EXPECT_TRUE(check.warnings.empty());
  EXPECT_EQ(check.error, "");
  EXPECT_FALSE(fs::exists(requested));
  EXPECT_FALSE(fs::exists(dir.path() / "fallback"));
}

TEST(CheckSpoolDirectory, ReportsTheFallbackWithItsReasonAndCreatesNothing) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  const std::string requested = (dir.path() / "file" / "spool").string();
  const SpoolDirectoryCheck check = check_spool_directory(requested, dir.path() / "fallback");
  ASSERT_EQ(check.lines.size(), 1u);
  EXPECT_TRUE(contains(check.lines[0], "spool directory: " + (dir.path() / "fallback").string() + " (fallback; " +
                                           "FILE_BUFFER_DIR " + requested + " is not usable: "))
      << check.lines[0];
  ASSERT_EQ(check.warnings.size(), 1u);
  EXPECT_TRUE(contains(check.warnings[0], "per-user fallback")) << check.warnings[0];
  EXPECT_EQ(check.error, "");
  EXPECT_FALSE(fs::exists(dir.path() / "fallback"));
}

TEST(CheckSpoolDirectory, WarnsWhenARunningBrokerHoldsTheDirectory) {
  TempDir dir;
  const SpoolLock holder(dir.path());
  const SpoolDirectoryCheck check = check_spool_directory(dir.path().string(), dir.path() / "fallback");
  ASSERT_EQ(check.warnings.size(), 1u);
  EXPECT_TRUE(contains(check.warnings[0], "in use by another broker (pid " + std::to_string(::getpid()) + ")"))
      << check.warnings[0];
  EXPECT_EQ(check.error, "");
}

TEST(CheckSpoolDirectory, FailsWhenNoDirectoryIsUsable) {
  TempDir dir;
  make_regular_file(dir.path() / "file");
  const SpoolDirectoryCheck check =
      check_spool_directory((dir.path() / "file" / "a").string(), dir.path() / "file" / "b");
  EXPECT_TRUE(contains(check.error, "no usable spool directory")) << check.error;
  EXPECT_TRUE(check.lines.empty());
}

// ---------------------------------------------------------------- the spool owns its directory

SpoolOptions options_for(const std::string& dir) {
  SpoolOptions o;
  o.dir = dir;
  return o;
}

TEST(SpoolOwnership, ASecondSpoolOnTheSameDirectoryIsRefusedAndTheFirstKeepsWorking) {
  TempDir dir;
  FakeStore store;
  ManualClock clock;
  Spool first(options_for(dir.path().string()), store, clock);
  EXPECT_THROW(Spool second(options_for(dir.path().string()), store, clock), SpoolDirectoryLocked);
  EXPECT_EQ(first.append(make_events("q", "a", 2)), std::vector<bool>(2, true));
  EXPECT_EQ(first.stats().pending_events, 2u);
}

TEST(SpoolOwnership, TwoSpoolsThatFallBackDoNotShareTheFallback) {
  TempDir dir;
  const ScopedTmpdir tmpdir(dir.path());
  make_regular_file(dir.path() / "file");
  FakeStore store;
  ManualClock clock;
  const std::string unusable = (dir.path() / "file" / "spool").string();
  Spool first(options_for(unusable), store, clock);
  EXPECT_TRUE(first.directory().fell_back);
  EXPECT_THROW(Spool second(options_for(unusable), store, clock), SpoolDirectoryLocked);
}

TEST(SpoolOwnership, ALockedRequestedDirectoryIsRefusedNotFallenBackFrom) {
  TempDir dir;
  const ScopedTmpdir tmpdir(dir.path());
  const fs::path requested = dir.path() / "spool";
  fs::create_directory(requested);
  const SpoolLock other_broker(requested);
  FakeStore store;
  ManualClock clock;
  EXPECT_THROW(Spool spool(options_for(requested.string()), store, clock), SpoolDirectoryLocked);
  EXPECT_FALSE(fs::exists(per_user_fallback_directory()));
}

TEST(SpoolOwnership, TheLockFileIsNeitherASpoolFileNorCounted) {
  TempDir dir;
  FakeStore store;
  ManualClock clock;
  const Spool spool(options_for(dir.path().string()), store, clock);
  EXPECT_TRUE(fs::exists(lock_file_path(dir.path())));
  EXPECT_FALSE(is_spool_file_name(std::string(kLockFileName)));
  EXPECT_EQ(spool.stats().pending_events, 0u);
  EXPECT_EQ(spool.stats().finalized_files, 0u);
}

}  // namespace
}  // namespace queen::spool
