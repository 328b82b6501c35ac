#pragma once
// The spool as one object: the broker's single entry point to the module.
//
// Boot order (the broker's):
//   Spool spool(options, store);            // directory (with fallback), its lock, inventory of what is on disk
//   (a fallback directory is logged as a warning where it is chosen; the settings are in "config: spool")
//   spool.recover_at_startup();             // before the listener binds
//   spool.start_drain();                    // background loop every flush_interval
// Push path: spool.append(items) -> per-item ok (buffered) / not ok (failed).
// Maintenance: spool.set_maintenance(true|false).
// Gauges: spool.stats().
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "spool/drain_loop.h"
#include "spool/replay.h"
#include "spool/spool_directory.h"
#include "spool/spool_drain.h"
#include "spool/spool_event.h"
#include "spool/spool_ledger.h"
#include "spool/spool_lock.h"
#include "spool/spool_writer.h"

namespace queen::spool {

// The settings default to the configuration's (config::SpoolConfig); the broker copies its configuration in.
struct SpoolOptions {
  std::string dir = config::Config::defaults().spool.dir;
  std::chrono::milliseconds flush_interval{config::Config::defaults().spool.flush_ms};
  std::size_t events_per_file = static_cast<std::size_t>(config::Config::defaults().spool.events_per_file);
  config::FsyncMode fsync = config::Config::defaults().spool.fsync;
  std::chrono::milliseconds recovery_budget = std::chrono::hours(1);
  SpoolDrainOptions drain;
};

class Spool {
 public:
  // Prepares the directory (falling back to a per-user temporary directory
  // with a warning), locks it for this object's life (spool_lock.h) and
  // counts the events already on disk into the stats. Throws
  // SpoolDirectoryLocked when another process holds that directory,
  // std::runtime_error when no directory is usable at all.
  Spool(SpoolOptions options, ReplayStore& store, const Clock& clock);
  ~Spool();  // stops the drain loop, finalizes the active file
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  const SpoolDirectory& directory() const { return directory_; }

  std::vector<bool> append(const std::vector<SpoolEvent>& events) { return writer_.append(events); }
  bool finalize_active() { return writer_.finalize_active(); }

  RecoverySummary recover_at_startup() { return drain_.recover_at_startup(options_.recovery_budget); }
  void start_drain() { loop_.start(); }
  void stop_drain() { loop_.stop(); }
  // On: every push is meant for the spool; the drain pauses so it accumulates.
  // Off: the active file is finalized and the drain resumes at once.
  void set_maintenance(bool enabled);
  void set_replay_gate(ReplayGate* gate) { drain_.set_replay_gate(gate); }
  // The push path reports what it saw of the database (e.g. false when a push
  // transaction failed transiently), so the drain paces itself accordingly.
  void set_db_healthy(bool healthy) { ledger_.set_db_healthy(healthy); }

  SpoolStats stats() const { return ledger_.snapshot(); }
  SpoolWriter& writer() { return writer_; }
  SpoolDrain& drain() { return drain_; }

 private:
  SpoolOptions options_;
  SpoolLedger ledger_;  // before directory_: the boot inventory fills it
  SpoolDirectory directory_;
  SpoolLock lock_;  // before writer_: released only after the writer finalized its file
  SpoolWriter writer_;
  SpoolDrain drain_;
  SpoolDrainLoop loop_;
};

}  // namespace queen::spool
