#pragma once
// In-memory bookkeeping of the spool: what the gauges and status routes read.
// Cheap and thread-safe; it never touches the disk. The writer, the drain and
// the boot inventory report to it; it also logs the enter/leave transitions of
// spool mode (pending going above zero / back to zero) once each.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace queen::spool {

struct SpoolStats {
  std::uint64_t pending_events = 0;   // appended (or found on disk) - replayed - quarantined
  std::uint64_t failed_events = 0;    // events in quarantined files (and in failed/ at boot)
  bool db_healthy = true;             // the drain's view of the database
  std::uint64_t finalized_files = 0;  // .buf files
  std::uint64_t active_files = 0;     // .tmp files
  std::uint64_t bytes = 0;            // total bytes of the .buf and .tmp files
  std::uint64_t failed_files = 0;     // files in failed/
  std::uint64_t failed_bytes = 0;
  bool last_append_failed = false;    // the most recent spool write failed (disk full, I/O error)
  std::uint64_t appended_total = 0;   // monotonic counters since start, for metrics
  std::uint64_t replayed_total = 0;
  std::uint64_t quarantined_total = 0;
};

class SpoolLedger {
 public:
  // Boot inventory: a spool file found on disk with `events` readable records.
  void track_existing_file(const std::string& stem, std::uint64_t events, std::uint64_t bytes, bool finalized);
  // Boot inventory: a file found in failed/.
  void track_failed_file(std::uint64_t events, std::uint64_t bytes);

  // The writer appended `events` records (`bytes` bytes) to the active file `stem`.
  void record_append(const std::string& stem, std::uint64_t events, std::uint64_t bytes);
  void record_append_failure();
  // `stem` was renamed .tmp -> .buf.
  void record_finalized(const std::string& stem);
  // The file `stem` now has `bytes` bytes (a torn tail was cut off).
  void record_resized(const std::string& stem, std::uint64_t bytes);
  // `events` records of `stem` were replayed into the database.
  void record_replayed(const std::string& stem, std::uint64_t events);
  // `stem` is gone from the spool directory. Events still counted for it are
  // dropped from pending: after a complete replay that is none, for an empty
  // or cut file the ones that never were readable.
  void record_removed(const std::string& stem);
  // `stem` left the drain for good: its remaining events become failed events;
  // `kept_bytes` are the bytes now in failed/ (0 when the file had to be deleted).
  void record_quarantined(const std::string& stem, std::uint64_t kept_bytes);
  // One event of `stem` left the drain for good (the rest of the file stays):
  // it becomes a failed event; `kept_bytes` are the bytes of its own file in
  // failed/ (0 when it could not be written).
  void record_event_quarantined(const std::string& stem, std::uint64_t kept_bytes);

  void set_db_healthy(bool healthy);
  bool db_healthy() const;
  std::uint64_t pending_events() const;
  SpoolStats snapshot() const;

 private:
  struct FileEntry {
    std::uint64_t events_remaining = 0;
    std::uint64_t bytes = 0;
    bool finalized = false;
  };

  // Call with mutex_ held after every change of pending: logs a transition.
  void note_pending_change_locked(std::uint64_t before);
  void subtract_pending_locked(std::uint64_t events);

  mutable std::mutex mutex_;
  std::map<std::string, FileEntry> files_;
  SpoolStats totals_;  // files/bytes fields are derived from files_ in snapshot()
};

}  // namespace queen::spool
