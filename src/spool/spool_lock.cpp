#include "spool/spool_lock.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

#include "spool/spool_log.h"

namespace fs = std::filesystem;

namespace queen::spool {
namespace {

// A write lock over the whole file.
struct flock whole_file_lock() {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // to the end of the file, however long it grows
  return lock;
}

std::string errno_text(int error) { return std::generic_category().message(error); }

long read_holder_pid(int fd) {
  char buffer[32];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  return n > 0 ? parse_lock_holder_pid(std::string_view(buffer, static_cast<std::size_t>(n))) : 0;
}

// Readable and closed on every path out.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const fs::path& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

fs::path lock_file_path(const fs::path& dir) { return dir / std::string(kLockFileName); }

SpoolDirectoryLocked::SpoolDirectoryLocked(const fs::path& dir, long holder_pid)
    : std::runtime_error(describe_locked_directory(dir, holder_pid)), holder_pid_(holder_pid) {}

SpoolLock::SpoolLock(const fs::path& dir) {
  const fs::path path = lock_file_path(dir);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("cannot open the lock file " + path.string() + ": " + errno_text(errno));
  struct flock lock = whole_file_lock();
  if (::fcntl(fd_, F_OFD_SETLK, &lock) != 0) {
    const int error = errno;
    const long holder = read_holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EAGAIN || error == EACCES) throw SpoolDirectoryLocked(dir, holder);
    throw std::runtime_error("cannot lock " + path.string() + ": " + errno_text(error));
  }
  // Only the holder writes: a refused broker never touches the pid of the one that runs.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    spool_log()->warn("cannot write this broker's pid into {}: {}; the lock holds, but a broker it refuses "
                      "cannot name this one",
                      path.string(), errno_text(errno));
  }
}

SpoolLock::~SpoolLock() {
  if (fd_ >= 0) ::close(fd_);  // the last descriptor of the open file: the kernel drops the lock
}

SpoolLock::SpoolLock(SpoolLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

std::optional<long> spool_lock_holder(const fs::path& dir) {
  const ReadOnlyFile file(lock_file_path(dir));
  if (file.fd() < 0) return std::nullopt;
  struct flock lock = whole_file_lock();
  if (::fcntl(file.fd(), F_OFD_GETLK, &lock) != 0 || lock.l_type == F_UNLCK) return std::nullopt;
  return read_holder_pid(file.fd());
}

long parse_lock_holder_pid(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  long pid = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (error != std::errc() || end != text.data() + text.size() || pid <= 0) return 0;
  return pid;
}

std::string describe_locked_directory(const fs::path& dir, long holder_pid) {
  const std::string holder = holder_pid > 0 ? "another broker (pid " + std::to_string(holder_pid) + ")"
                                            : std::string("another broker (pid unknown)");
  return "spool directory " + dir.string() + " is in use by " + holder + ", which holds " +
         lock_file_path(dir).string() + "; every broker needs a spool directory of its own (FILE_BUFFER_DIR)";
}

}  // namespace queen::spool
