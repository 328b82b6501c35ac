#include "spool/spool_ledger.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "spool/spool_log.h"

namespace queen::spool {

namespace {
// Adds (sign = +1) or removes (sign = -1) one file's share of the totals.
void apply_file(SpoolStats& totals, bool finalized, std::uint64_t bytes, int sign) {
  auto& count = finalized ? totals.finalized_files : totals.active_files;
  if (sign > 0) {
    ++count;
    totals.bytes += bytes;
  } else {
    count -= std::min<std::uint64_t>(count, 1);
    totals.bytes -= std::min(totals.bytes, bytes);
  }
}
}  // namespace

void SpoolLedger::note_pending_change_locked(std::uint64_t before) {
  const std::uint64_t after = totals_.pending_events;
  if (before == 0 && after > 0) {
    spool_log()->warn("entering spool mode: {} event(s) buffered on disk, waiting for replay", after);
  } else if (before > 0 && after == 0) {
    spool_log()->info("leaving spool mode: every buffered event was replayed or quarantined");
  }
}

void SpoolLedger::subtract_pending_locked(std::uint64_t events) {
  totals_.pending_events -= std::min(totals_.pending_events, events);
}

void SpoolLedger::track_existing_file(const std::string& stem, std::uint64_t events, std::uint64_t bytes,
                                      bool finalized) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = totals_.pending_events;
  auto [it, inserted] = files_.try_emplace(stem);
  if (!inserted) {
    subtract_pending_locked(it->second.events_remaining);
    apply_file(totals_, it->second.finalized, it->second.bytes, -1);
  }
  it->second = FileEntry{events, bytes, finalized};
  apply_file(totals_, finalized, bytes, +1);
  totals_.pending_events += events;
  note_pending_change_locked(before);
}

void SpoolLedger::track_failed_file(std::uint64_t events, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  totals_.failed_events += events;
  ++totals_.failed_files;
  totals_.failed_bytes += bytes;
}

void SpoolLedger::record_append(const std::string& stem, std::uint64_t events, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = totals_.pending_events;
  auto [it, inserted] = files_.try_emplace(stem);
  if (inserted) apply_file(totals_, /*finalized=*/false, 0, +1);
  it->second.events_remaining += events;
  it->second.bytes += bytes;
  totals_.bytes += bytes;
  totals_.pending_events += events;
  totals_.appended_total += events;
  totals_.last_append_failed = false;
  note_pending_change_locked(before);
}

void SpoolLedger::record_append_failure() {
  std::lock_guard lock(mutex_);
  totals_.last_append_failed = true;
}

void SpoolLedger::record_finalized(const std::string& stem) {
  std::lock_guard lock(mutex_);
  const auto it = files_.find(stem);
  if (it == files_.end() || it->second.finalized) return;
  apply_file(totals_, false, it->second.bytes, -1);
  it->second.finalized = true;
  apply_file(totals_, true, it->second.bytes, +1);
}

void SpoolLedger::record_resized(const std::string& stem, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const auto it = files_.find(stem);
  if (it == files_.end()) return;
  totals_.bytes -= std::min(totals_.bytes, it->second.bytes);
  totals_.bytes += bytes;
  it->second.bytes = bytes;
}

void SpoolLedger::record_replayed(const std::string& stem, std::uint64_t events) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = totals_.pending_events;
  totals_.replayed_total += events;
  const auto it = files_.find(stem);
  if (it == files_.end()) return;
  const std::uint64_t counted = std::min(it->second.events_remaining, events);
  it->second.events_remaining -= counted;
  subtract_pending_locked(counted);
  note_pending_change_locked(before);
}

void SpoolLedger::record_removed(const std::string& stem) {
  std::lock_guard lock(mutex_);
  const auto it = files_.find(stem);
  if (it == files_.end()) return;
  const std::uint64_t before = totals_.pending_events;
  subtract_pending_locked(it->second.events_remaining);
  apply_file(totals_, it->second.finalized, it->second.bytes, -1);
  files_.erase(it);
  note_pending_change_locked(before);
}

void SpoolLedger::record_quarantined(const std::string& stem, std::uint64_t kept_bytes) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = totals_.pending_events;
  const auto it = files_.find(stem);
  std::uint64_t events = 0;
  if (it != files_.end()) {
    events = it->second.events_remaining;
    subtract_pending_locked(events);
    apply_file(totals_, it->second.finalized, it->second.bytes, -1);
    files_.erase(it);
  }
  totals_.failed_events += events;
  totals_.quarantined_total += events;
  if (kept_bytes > 0) {
    ++totals_.failed_files;
    totals_.failed_bytes += kept_bytes;
  }
  note_pending_change_locked(before);
}

void SpoolLedger::record_event_quarantined(const std::string& stem, std::uint64_t kept_bytes) {
  std::lock_guard lock(mutex_);
  const std::uint64_t before = totals_.pending_events;
  const auto it = files_.find(stem);
  if (it != files_.end() && it->second.events_remaining > 0) {
    --it->second.events_remaining;
    subtract_pending_locked(1);
  }
  ++totals_.failed_events;
  ++totals_.quarantined_total;
  if (kept_bytes > 0) {
    ++totals_.failed_files;
    totals_.failed_bytes += kept_bytes;
  }
  note_pending_change_locked(before);
}

void SpoolLedger::set_db_healthy(bool healthy) {
  std::lock_guard lock(mutex_);
  totals_.db_healthy = healthy;
}

bool SpoolLedger::db_healthy() const {
  std::lock_guard lock(mutex_);
  return totals_.db_healthy;
}

std::uint64_t SpoolLedger::pending_events() const {
  std::lock_guard lock(mutex_);
  return totals_.pending_events;
}

SpoolStats SpoolLedger::snapshot() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

}  // namespace queen::spool
