#include "spool/spool_writer.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "spool/record_codec.h"
#include "spool/spool_directory.h"
#include "spool/spool_ledger.h"
#include "spool/spool_log.h"

namespace fs = std::filesystem;

namespace queen::spool {
namespace {

// O_EXCL collisions can only come from a file someone else created with our
// next name; a few attempts with later ids settle it.
constexpr int kOpenAttempts = 16;

std::uint64_t system_epoch_ms() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

SpoolWriter::SpoolWriter(SpoolWriterOptions options, SpoolLedger& ledger)
    : options_(std::move(options)), ledger_(ledger) {
  if (options_.events_per_file == 0) throw std::invalid_argument("events_per_file must be at least 1");
  if (!options_.now_epoch_ms) options_.now_epoch_ms = system_epoch_ms;
  last_id_ = newest_file_id(options_.dir);
}

SpoolWriter::~SpoolWriter() {
  std::lock_guard lock(mutex_);
  finalize_active_locked();
}

std::vector<bool> SpoolWriter::append(const std::vector<SpoolEvent>& events) {
  std::vector<bool> stored(events.size(), false);
  // Encode outside the lock: it is the CPU-heavy part.
  std::string encoded;
  std::vector<std::size_t> event_index;  // encoded record k belongs to events[event_index[k]]
  std::vector<std::size_t> record_end;   // encoded record k ends at record_end[k]
  for (std::size_t i = 0; i < events.size(); ++i) {
    try {
      append_record(encoded, events[i]);
      event_index.push_back(i);
      record_end.push_back(encoded.size());
    } catch (const std::invalid_argument& e) {
      spool_log()->error("cannot spool event {} of queue {}: {}", events[i].transaction_id, events[i].queue,
                         e.what());
    }
  }

  std::lock_guard lock(mutex_);
  std::size_t k = 0;
  while (k < event_index.size()) {
    if (!active_ && !open_new_file_locked()) break;
    const std::size_t room = options_.events_per_file - active_->events;
    const std::size_t take = std::min(room, event_index.size() - k);
    const std::size_t begin = k == 0 ? 0 : record_end[k - 1];
    const std::size_t end = record_end[k + take - 1];
    if (!write_chunk_locked(encoded.data() + begin, end - begin, take)) break;
    ledger_.record_append(active_->stem, take, end - begin);
    for (std::size_t j = k; j < k + take; ++j) stored[event_index[j]] = true;
    k += take;
    if (active_->events >= options_.events_per_file) finalize_active_locked();
  }
  if (k < event_index.size() || event_index.size() < events.size()) ledger_.record_append_failure();
  return stored;
}

bool SpoolWriter::open_new_file_locked() {
  std::error_code ec;
  fs::create_directories(options_.dir, ec);  // recreate it if someone removed it meanwhile
  for (int attempt = 0; attempt < kOpenAttempts; ++attempt) {
    const SpoolFileId id = next_file_id(last_id_, options_.now_epoch_ms());
    last_id_ = id;
    const fs::path path = options_.dir / active_file_name(id);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      spool_log()->error("cannot create spool file {}: {}", path.string(), std::strerror(errno));
      return false;
    }
    if (options_.fsync == config::FsyncMode::Batch) sync_directory(options_.dir);
    active_ = ActiveFile{fd, file_stem(id), path, 0, 0};
    return true;
  }
  spool_log()->error("cannot create a spool file in {}: every candidate name exists", options_.dir.string());
  return false;
}

bool SpoolWriter::write_chunk_locked(const char* bytes, std::size_t size, std::size_t events) {
  std::size_t written = 0;
  std::string failure;
  while (written < size) {
    const ssize_t n = ::write(active_->fd, bytes + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure = n < 0 ? std::strerror(errno) : "write returned 0";
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  if (failure.empty() && options_.fsync == config::FsyncMode::Batch && ::fdatasync(active_->fd) != 0)
    failure = std::string("fdatasync: ") + std::strerror(errno);
  if (failure.empty()) {
    active_->bytes += size;
    active_->events += events;
    return true;
  }

  spool_log()->error("spool write to {} failed: {}", active_->path.string(), failure);
  if (::ftruncate(active_->fd, static_cast<off_t>(active_->bytes)) != 0) {
    // The half-written records stay behind; stop appending to this file so
    // nothing acknowledged ever sits after them. Readers stop at the damage.
    spool_log()->error("cannot cut {} back to {} bytes ({}); finalizing it as it is", active_->path.string(),
                       active_->bytes, std::strerror(errno));
    finalize_active_locked();
  }
  return false;
}

bool SpoolWriter::finalize_active() {
  std::lock_guard lock(mutex_);
  return finalize_active_locked();
}

bool SpoolWriter::finalize_active_locked() {
  retry_stuck_renames_locked();
  if (!active_) return false;
  ActiveFile file = *active_;
  active_.reset();
  ::close(file.fd);
  if (file.events == 0) {
    std::error_code ec;
    fs::remove(file.path, ec);
    ledger_.record_removed(file.stem);
    return false;
  }
  fs::path target = file.path;
  target.replace_extension(std::string(kFinalizedExtension));
  std::error_code ec;
  fs::rename(file.path, target, ec);
  if (ec) {
    spool_log()->error("cannot finalize {}: {}; will retry", file.path.string(), ec.message());
    stuck_renames_.push_back(file.path);
    return false;
  }
  if (options_.fsync == config::FsyncMode::Batch) sync_directory(options_.dir);
  ledger_.record_finalized(file.stem);
  return true;
}

void SpoolWriter::retry_stuck_renames_locked() {
  for (auto it = stuck_renames_.begin(); it != stuck_renames_.end();) {
    fs::path target = *it;
    target.replace_extension(std::string(kFinalizedExtension));
    std::error_code ec;
    fs::rename(*it, target, ec);
    if (ec) {
      ++it;
      continue;
    }
    ledger_.record_finalized(stem_of(target.filename().string()));
    it = stuck_renames_.erase(it);
  }
}

}  // namespace queen::spool
