#include "spool/spool.h"

namespace queen::spool {
namespace {

SpoolDirectory prepare_and_count(const std::string& requested, SpoolLedger& ledger) {
  SpoolDirectory dir = prepare_spool_directory(requested);
  inventory_spool_directory(dir.path, ledger);
  return dir;
}

}  // namespace

Spool::Spool(SpoolOptions options, ReplayStore& store, const Clock& clock)
    : options_(std::move(options)),
      directory_(prepare_and_count(options_.dir, ledger_)),
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
