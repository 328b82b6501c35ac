#include "spool/spool.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "spool/spool_log.h"

namespace queen::spool {
namespace {

// The lock comes before anything reads the directory: a second broker never counts, let alone replays, the
// files of the one that holds it.
SpoolLock lock_and_count(const SpoolDirectory& directory, SpoolLedger& ledger) {
  SpoolLock lock(directory.path);
  spool_log()->info("spool directory {} ({}), locked by this broker (pid {})", directory.path.string(),
                    directory.fell_back ? "fallback" : "FILE_BUFFER_DIR", ::getpid());
  inventory_spool_directory(directory.path, ledger);
  return lock;
}

}  // namespace

Spool::Spool(SpoolOptions options, ReplayStore& store, const Clock& clock)
    : options_(std::move(options)),
      directory_(prepare_spool_directory(options_.dir)),
      lock_(lock_and_count(directory_, ledger_)),
      writer_(SpoolWriterOptions{directory_.path, options_.events_per_file, options_.fsync, {}}, ledger_),
      drain_(directory_.path, options_.drain, store, ledger_, &writer_, clock),
      loop_(drain_, options_.flush_interval, clock) {}

Spool::~Spool() { loop_.stop(); }

void Spool::set_maintenance(bool enabled) {
  if (enabled) {
    loop_.pause(true);
    return;
  }
  writer_.finalize_active();
  loop_.pause(false);
}

}  // namespace queen::spool
