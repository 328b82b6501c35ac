#pragma once
// The maintenance flags (push and pop) as this broker knows them: read from
// the database at boot and every SYSTEM_FLAG_REFRESH_MS (sooner when a peer
// says one flipped), persisted by the maintenance routes, and followed by the
// spool (push maintenance pauses its drain) and the parked pops (pop
// maintenance off re-checks them at once).
//
// No database or disk I/O runs under a lock here: a read or write happens
// first, the in-memory values change under `mutex_`, and the spool and the
// pops are told afterwards, outside it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "db/db_error.h"
#include "db/procedures.h"
#include "util/background_worker.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

class SpoolBridge;

class MaintenanceFlags {
 public:
  // `spool` (nullable: no spool) follows the push flag; both it and the
  // others must outlive this object.
  MaintenanceFlags(db::Procedures& db, wake::PopWaiters& waiters, SpoolBridge* spool,
                   std::chrono::milliseconds refresh_period);
  ~MaintenanceFlags() = default;  // the refresher stops
  MaintenanceFlags(const MaintenanceFlags&) = delete;
  MaintenanceFlags& operator=(const MaintenanceFlags&) = delete;

  // Reads the persisted flags once (best effort: the defaults stand while the
  // database is down) and starts the periodic refresh.
  void start();
  void stop();

  // Re-reads the flags on the refresh thread now instead of at its next
  // period (a peer said a flag flipped: the frame says "look", the database
  // says what). Never blocks.
  void request_refresh() { refresher_.wake(); }
  // Re-reads the flags on this thread; keeps the last known values when the
  // database cannot be read.
  void refresh();

  bool push() const { return push_.load(std::memory_order_relaxed); }
  bool pop() const { return pop_.load(std::memory_order_relaxed); }

  // Persist a flag, then apply it here. Throw db::DbError when the write fails.
  void persist_push(bool enabled);
  void persist_pop(bool enabled);

  // The one place the push flag changes in memory (a POST, the refresh, boot):
  // logs a change and makes the spool follow (on: pause the drain; off:
  // finalize and resume it).
  void apply_push(bool enabled, const char* source);

 private:
  // What one change under mutex_ leaves to do outside it.
  struct PushChange {
    bool enabled;
    bool changed;
    std::uint64_t generation;  // orders the spool calls of racing changes
  };
  PushChange change_push_locked(bool enabled);
  void after_push_change(const PushChange& change, const char* source);
  void begin_write();

  db::Procedures& db_;
  wake::PopWaiters& waiters_;
  SpoolBridge* const spool_;
  const std::chrono::milliseconds refresh_period_;

  std::atomic<bool> push_{false};
  std::atomic<bool> pop_{false};
  // A database read of the flags may predate a POST that changes them; the
  // POST bumps writes_ (before and after its write) and the refresh applies
  // what it read only if no write happened meanwhile, so a stale read can
  // never undo a POST.
  std::mutex mutex_;
  std::uint64_t writes_ = 0;           // guarded by mutex_
  std::uint64_t push_generation_ = 0;  // guarded by mutex_

  util::BackgroundWorker refresher_;  // last: stops before the rest goes
};

}  // namespace queen::broker
