#pragma once
// Shared helpers of the spool unit tests: temporary directories, events,
// spool files written directly, a scriptable replay store; the manual clock is the shared one.
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "spool/file_names.h"
#include "spool/record_codec.h"
#include "spool/replay.h"
#include "spool/spool_event.h"
#include "../support/manual_clock.h"

namespace queen::spool::testing {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "queen-spool-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline SpoolEvent make_event(const std::string& queue, const std::string& partition, const std::string& txid,
                             const Tenant& tenant = Tenant::default_tenant()) {
  SpoolEvent e(tenant);
  e.queue = queue;
  e.partition = partition;
  e.transaction_id = txid;
  e.payload_json = "{\"tx\":\"" + txid + "\"}";
  return e;
}

inline std::vector<SpoolEvent> make_events(const std::string& queue, const std::string& prefix, int count) {
  std::vector<SpoolEvent> events;
  for (int i = 0; i < count; ++i) events.push_back(make_event(queue, "Default", prefix + std::to_string(i)));
  return events;
}

inline std::string encode_all(const std::vector<SpoolEvent>& events) {
  std::string bytes;
  for (const auto& e : events) append_record(bytes, e);
  return bytes;
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes a finalized spool file named after `id` directly (no writer).
inline fs::path write_buf_file(const fs::path& dir, SpoolFileId id, const std::vector<SpoolEvent>& events) {
  const fs::path path = dir / finalized_file_name(id);
  write_bytes(path, encode_all(events));
  return path;
}

inline std::vector<std::string> names_with_extension(const fs::path& dir, std::string_view extension) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > extension.size() &&
        name.compare(name.size() - extension.size(), extension.size(), extension.data(), extension.size()) == 0)
      names.push_back(name);
  }
  sort_fifo(names);
  return names;
}

inline std::vector<std::string> txids(const std::vector<SpoolEvent>& events) {
  std::vector<std::string> ids;
  for (const auto& e : events) ids.push_back(e.transaction_id);
  return ids;
}

// Records every batch; the answer per batch comes from `respond` (Ok by default).
class FakeStore final : public ReplayStore {
 public:
  std::function<ReplayOutcome(const std::vector<SpoolEvent>&)> respond;

  ReplayOutcome replay(const std::vector<SpoolEvent>& batch) override {
    ReplayOutcome outcome = respond ? respond(batch) : ReplayOutcome::ok();
    std::lock_guard lock(mutex_);
    ++calls_;
    if (outcome.kind == ReplayOutcome::Kind::Ok) stored_batches_.push_back(batch);
    return outcome;
  }

  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::vector<std::vector<SpoolEvent>> stored_batches() const {
    std::lock_guard lock(mutex_);
    return stored_batches_;
  }
  std::vector<SpoolEvent> stored_events() const {
    std::lock_guard lock(mutex_);
    std::vector<SpoolEvent> all;
    for (const auto& b : stored_batches_) all.insert(all.end(), b.begin(), b.end());
    return all;
  }

 private:
  mutable std::mutex mutex_;
  int calls_ = 0;
  std::vector<std::vector<SpoolEvent>> stored_batches_;
};

using test_support::ManualClock;

}  // namespace queen::spool::testing
