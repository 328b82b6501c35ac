#pragma once
// One broker per spool directory (docs/operations-spool.md, "One broker per spool directory").
//
// A broker holds an exclusive lock on <dir>/broker.lock for as long as its
// spool exists, and writes its pid into that file. The lock is an
// open-file-description lock (fcntl F_OFD_SETLK): like flock(2) it belongs to
// the open file, not to a thread, and the kernel drops it when the process
// ends however it ends (exit, crash, SIGKILL), so a dead broker never blocks
// the next one. Unlike flock(2), F_OFD_GETLK can test it without taking it,
// which lets --check-config say whether a running broker holds a directory
// without disturbing that broker or one starting at the same moment.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace queen::spool {

inline constexpr std::string_view kLockFileName = "broker.lock";

std::filesystem::path lock_file_path(const std::filesystem::path& dir);

// Another process holds the directory's lock.
class SpoolDirectoryLocked : public std::runtime_error {
 public:
  SpoolDirectoryLocked(const std::filesystem::path& dir, long holder_pid);
  long holder_pid() const { return holder_pid_; }  // 0: unknown

 private:
  long holder_pid_;
};

class SpoolLock {
 public:
  // Takes the lock on `dir` (creating the lock file) and writes this process's
  // pid into it. Throws SpoolDirectoryLocked when another process holds it,
  // std::runtime_error when the file cannot be opened or locked at all.
  explicit SpoolLock(const std::filesystem::path& dir);
  ~SpoolLock();  // releases it
  SpoolLock(const SpoolLock&) = delete;
  SpoolLock& operator=(const SpoolLock&) = delete;
  SpoolLock(SpoolLock&& other) noexcept;
  SpoolLock& operator=(SpoolLock&&) = delete;

 private:
  int fd_ = -1;
};

// Whether a process holds `dir`'s lock now, tested without taking it and
// without creating anything: nullopt when nobody does (or there is no lock
// file), else the holder's pid as it wrote it (0: unknown).
std::optional<long> spool_lock_holder(const std::filesystem::path& dir);

// The pid a lock file holds ("1234\n"); 0 when the text is not one.
long parse_lock_holder_pid(std::string_view text);

// "spool directory <dir> is in use by another broker (pid N)...": the line a
// broker refused at boot logs, and --check-config's warning.
std::string describe_locked_directory(const std::filesystem::path& dir, long holder_pid);

}  // namespace queen::spool
