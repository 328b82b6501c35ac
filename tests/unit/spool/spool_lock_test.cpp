#include "spool/spool_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "spool_test_support.h"

namespace queen::spool {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SpoolLock, WritesTheHoldersPidIntoTheLockFile) {
  TempDir dir;
  const SpoolLock lock(dir.path());
  EXPECT_EQ(read_file(lock_file_path(dir.path())), std::to_string(::getpid()) + "\n");
}

TEST(SpoolLock, ASecondLockOnTheSameDirectoryIsRefusedAndNamesTheHolder) {
  TempDir dir;
  const SpoolLock first(dir.path());
  try {
    const SpoolLock second(dir.path());
    FAIL() << "a second lock was granted";
  } catch (const SpoolDirectoryLocked& e) {
    EXPECT_EQ(e.holder_pid(), ::getpid());
    const std::string message = e.what();
    EXPECT_NE(message.find(dir.path().string()), std::string::npos) << message;
    EXPECT_NE(message.find("pid " + std::to_string(::getpid())), std::string::npos) << message;
  }
  // The refused attempt closed its own descriptor only: the first still holds the lock.
  EXPECT_EQ(spool_lock_holder(dir.path()), std::optional<long>(::getpid()));
}

TEST(SpoolLock, IsReleasedWhenItsHolderGoesAway) {
  TempDir dir;
  { const SpoolLock first(dir.path()); }
  EXPECT_EQ(spool_lock_holder(dir.path()), std::nullopt);
  EXPECT_NO_THROW(SpoolLock again(dir.path()));
}

TEST(SpoolLock, TheKernelReleasesTheLockOfAKilledProcess) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const SpoolLock lock(dir.path());
    const char byte = 'x';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    ::pause();  // until SIGKILL: no destructor runs
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_EQ(spool_lock_holder(dir.path()), std::optional<long>(child));
  EXPECT_THROW(SpoolLock refused(dir.path()), SpoolDirectoryLocked);

  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  // The dead holder's lock file stays, with its pid; its lock does not.
  EXPECT_EQ(read_file(lock_file_path(dir.path())), std::to_string(child) + "\n");
  EXPECT_EQ(spool_lock_holder(dir.path()), std::nullopt);
  const SpoolLock next(dir.path());
  EXPECT_EQ(read_file(lock_file_path(dir.path())), std::to_string(::getpid()) + "\n");
}

TEST(SpoolLock, TheHolderTestCreatesNothing) {
  TempDir dir;
  EXPECT_EQ(spool_lock_holder(dir.path()), std::nullopt);
  EXPECT_FALSE(fs::exists(lock_file_path(dir.path())));
}

TEST(SpoolLock, AnUnopenableLockFileIsAnErrorNotALock) {
  TempDir dir;
  fs::create_directory(lock_file_path(dir.path()));  // a directory where the file should be
  try {
    const SpoolLock lock(dir.path());
    FAIL() << "locked a directory";
  } catch (const SpoolDirectoryLocked&) {
    FAIL() << "reported as held by another broker";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the lock file"), std::string::npos) << e.what();
  }
}

TEST(SpoolLockHolderPid, ParsesWhatAHolderWrites) {
  EXPECT_EQ(parse_lock_holder_pid("1234\n"), 1234);
  EXPECT_EQ(parse_lock_holder_pid("1234"), 1234);
  EXPECT_EQ(parse_lock_holder_pid(""), 0);
  EXPECT_EQ(parse_lock_holder_pid("\n"), 0);
  EXPECT_EQ(parse_lock_holder_pid("12ab\n"), 0);
  EXPECT_EQ(parse_lock_holder_pid("-5\n"), 0);
  EXPECT_EQ(parse_lock_holder_pid("0\n"), 0);
  EXPECT_EQ(parse_lock_holder_pid(" 12\n"), 0);
}

TEST(SpoolLockMessage, NamesTheDirectoryThePidAndTheSetting) {
  const std::string known = describe_locked_directory("/srv/spool", 42);
  EXPECT_NE(known.find("/srv/spool is in use by another broker (pid 42)"), std::string::npos) << known;
  EXPECT_NE(known.find("/srv/spool/broker.lock"), std::string::npos) << known;
  EXPECT_NE(known.find("FILE_BUFFER_DIR"), std::string::npos) << known;
  const std::string unknown = describe_locked_directory("/srv/spool", 0);
  EXPECT_NE(unknown.find("(pid unknown)"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace queen::spool
