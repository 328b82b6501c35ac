#pragma once
// Appends push events to the active spool file (.tmp), rotates it after
// events_per_file events and finalizes it (.tmp -> .buf) so the drain can
// replay it. Thread-safe: one mutex serialises appends, rotation and finalize.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "spool/file_names.h"
#include "spool/spool_event.h"

namespace queen::spool {

class SpoolLedger;

struct SpoolWriterOptions {
  std::filesystem::path dir;                 // already prepared (prepare_spool_directory)
  std::size_t events_per_file = static_cast<std::size_t>(config::Config::defaults().spool.events_per_file);
  config::FsyncMode fsync = config::Config::defaults().spool.fsync;
  // Wall clock in epoch milliseconds, for file names; replaceable in tests.
  std::function<std::uint64_t()> now_epoch_ms;
};

class SpoolWriter {
 public:
  SpoolWriter(SpoolWriterOptions options, SpoolLedger& ledger);
  ~SpoolWriter();  // finalizes the active file
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;

  // Appends every event; result[i] tells whether events[i] is durably in the
  // spool (as durable as the fsync mode makes it). The events going into one
  // file are written with one write(); when a write or sync fails the file is
  // cut back to its previous size, so no half record is ever left to decode,
  // and those events (and the ones after them) are reported failed.
  std::vector<bool> append(const std::vector<SpoolEvent>& events);

  // Closes the active file and renames it .tmp -> .buf. Returns true when a
  // file was finalized. Retries renames that failed earlier.
  bool finalize_active();

  const std::filesystem::path& directory() const { return options_.dir; }
  const SpoolWriterOptions& options() const { return options_; }

 private:
  struct ActiveFile {
    int fd = -1;
    std::string stem;
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    std::size_t events = 0;
  };

  bool open_new_file_locked();
  // Writes `size` bytes holding `events` records at the end of the active
  // file; on failure cuts the file back to its previous size.
  bool write_chunk_locked(const char* bytes, std::size_t size, std::size_t events);
  bool finalize_active_locked();
  void retry_stuck_renames_locked();

  SpoolWriterOptions options_;
  SpoolLedger& ledger_;
  std::mutex mutex_;
  std::optional<ActiveFile> active_;
  std::optional<SpoolFileId> last_id_;
  // .tmp files whose rename to .buf failed; retried on every finalize.
  std::vector<std::filesystem::path> stuck_renames_;
};

}  // namespace queen::spool
