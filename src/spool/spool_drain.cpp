#include "spool/spool_drain.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <thread>

#include "spool/file_names.h"
#include "spool/poison_policy.h"
#include "spool/spool_directory.h"
#include "spool/spool_ledger.h"
#include "spool/spool_log.h"
#include "spool/spool_writer.h"

namespace fs = std::filesystem;

namespace queen::spool {
namespace {

std::string name_of(const fs::path& file) { return file.filename().string(); }

}  // namespace

const char* to_string(CycleReport::Result result) noexcept {
  switch (result) {
    case CycleReport::Result::Paused: return "paused";
    case CycleReport::Result::CoolingDown: return "cooling_down";
    case CycleReport::Result::Idle: return "idle";
    case CycleReport::Result::Drained: return "drained";
    case CycleReport::Result::FileBudgetReached: return "file_budget_reached";
    case CycleReport::Result::NotAdmitted: return "not_admitted";
    case CycleReport::Result::TransientFailure: return "transient_failure";
    case CycleReport::Result::PermanentFailure: return "permanent_failure";
    case CycleReport::Result::SuspectFailure: return "suspect_failure";
  }
  return "unknown";
}

const char* to_string(RecoverySummary::Stop stop) noexcept {
  switch (stop) {
    case RecoverySummary::Stop::Completed: return "completed";
    case RecoverySummary::Stop::Failed: return "failed";
    case RecoverySummary::Stop::Deadline: return "deadline";
  }
  return "unknown";
}

SpoolDrain::SpoolDrain(fs::path dir, SpoolDrainOptions options, ReplayStore& store, SpoolLedger& ledger,
                       SpoolWriter* writer, const Clock& clock)
    : dir_(std::move(dir)), options_(options), store_(store), ledger_(ledger), writer_(writer), clock_(clock) {}

bool SpoolDrain::cooling_down() const {
  const auto until = cooldown_until_.load();
  return until != 0 && clock_.now().time_since_epoch().count() < until;
}

CycleReport SpoolDrain::run_cycle() {
  std::lock_guard lock(cycle_mutex_);
  CycleReport report;
  if (paused_.load()) {
    report.result = CycleReport::Result::Paused;
    return report;
  }
  if (cooling_down()) {
    report.result = CycleReport::Result::CoolingDown;
    return report;
  }
  cooldown_until_.store(0);

  if (writer_ != nullptr) writer_->finalize_active();
  const auto files = list_spool_files(dir_, kFinalizedExtension);
  if (files.empty()) {
    report.result = CycleReport::Result::Idle;
    return report;
  }

  // The pace is decided once per cycle: a broker that still fails probes with
  // one file, a healthy one refills PostgreSQL with up to ten.
  const std::size_t budget =
      ledger_.db_healthy() ? options_.files_per_cycle_healthy : options_.files_per_cycle_unhealthy;
  std::size_t attempted = 0;
  report.result = CycleReport::Result::Drained;
  for (const auto& file : files) {
    if (attempted >= budget) {
      report.result = CycleReport::Result::FileBudgetReached;
      break;
    }
    std::unique_ptr<ReplayPermit> permit;
    if (gate_ != nullptr && !(permit = gate_->admit())) {
      report.result = CycleReport::Result::NotAdmitted;
      break;
    }
    const FileAttempt attempt = replay_file(file, std::nullopt);
    report.events_replayed += attempt.events_replayed;
    report.events_quarantined += attempt.events_quarantined;
    if (attempt.result == FileResult::Replayed) {
      finish_replayed_file(file);
      ++report.files_replayed;
      ++attempted;
      continue;
    }
    // A quarantined poison file does not use up the cycle's budget: the point
    // of quarantine is that the files behind it move on now.
    if (attempt.result == FileResult::Quarantined) {
      ++report.files_quarantined;
      continue;
    }
    report.error = attempt.error;
    if (attempt.result == FileResult::Transient) {
      note_transient_failure(file, attempt.error);
      report.result = CycleReport::Result::TransientFailure;
      break;
    }
    if (attempt.result == FileResult::Suspect) {
      report.result = CycleReport::Result::SuspectFailure;
      break;
    }
    if (attempt.result == FileResult::Permanent && note_permanent_failure(file, attempt.error)) {
      ++report.files_quarantined;
      continue;
    }
    report.result = CycleReport::Result::PermanentFailure;
    break;
  }
  return report;
}

SpoolDrain::HeadFile* SpoolDrain::load_head(const fs::path& file, std::string& error) {
  const std::string stem = stem_of(name_of(file));
  std::error_code ec;
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) {
    error = "cannot stat spool file " + file.string() + ": " + ec.message();
    return nullptr;
  }
  if (head_ && head_->stem == stem && head_->file_bytes == size) return &*head_;
  head_.reset();
  HeadFile head;
  try {
    head.scan = scan_spool_file(file);
  } catch (const SpoolIoError& e) {
    error = e.what();
    return nullptr;
  }
  head.stem = stem;
  head.file_bytes = head.scan.file_bytes;
  std::vector<ReplayGroupKey> groups;
  std::vector<std::uint64_t> bytes;
  groups.reserve(head.scan.records.size());
  bytes.reserve(head.scan.records.size());
  for (const auto& record : head.scan.records) {
    groups.push_back(record.group);
    bytes.push_back(record.body_bytes);
  }
  ReplayPlan plan = plan_replay(groups, bytes, options_.max_batch, options_.max_batch_bytes, options_.replay_lanes);
  head.batches = std::move(plan.batches);
  head.lanes = std::move(plan.lanes);
  head.done.assign(head.scan.records.size(), 0);
  head.alone.assign(head.batches.size(), 0);
  head.failures.assign(head.scan.records.size(), 0);
  head_ = std::move(head);
  return &*head_;
}

// What the threads replaying one file share: the next lane to take, the first
// failure and the record bytes in calls right now.
struct SpoolDrain::LaneState {
  explicit LaneState(std::uint64_t byte_budget) : byte_budget(byte_budget) {}

  const std::uint64_t byte_budget;  // 0: none
  std::atomic<std::size_t> next_lane{0};
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> events_replayed{0};
  std::mutex mutex;  // guards the fields below
  std::condition_variable bytes_freed;
  std::uint64_t bytes_in_calls = 0;
  std::optional<FileResult> failure;
  std::string error;
  bool drop_head = false;  // the file could not be read: scan it afresh next time
  // A failed store call: its outcome, its batch and its records.
  std::optional<ReplayOutcome> store_outcome;
  std::size_t failed_batch = 0;
  std::vector<std::size_t> failed_records;

  void fail(FileResult result, std::string why, bool unreadable = false) {
    std::lock_guard lock(mutex);
    if (!failure) {
      failure = result;
      error = std::move(why);
    }
    drop_head = drop_head || unreadable;
    stop.store(true);
    bytes_freed.notify_all();
  }

  void fail_store(ReplayOutcome outcome, std::size_t batch, std::vector<std::size_t> records) {
    std::lock_guard lock(mutex);
    if (!failure) {
      failure = outcome.kind == ReplayOutcome::Kind::Transient ? FileResult::Transient : FileResult::Permanent;
      error = outcome.error;
      store_outcome = std::move(outcome);
      failed_batch = batch;
      failed_records = std::move(records);
    }
    stop.store(true);
    bytes_freed.notify_all();
  }

  // Waits until `bytes` more fit the budget (a call larger than the budget
  // waits until no other call runs); false when the file stopped meanwhile.
  bool take_bytes(std::uint64_t bytes) {
    std::unique_lock lock(mutex);
    bytes_freed.wait(lock, [&] {
      return stop.load() || byte_budget == 0 || bytes_in_calls == 0 || bytes_in_calls + bytes <= byte_budget;
    });
    if (stop.load()) return false;
    bytes_in_calls += bytes;
    return true;
  }

  void give_bytes(std::uint64_t bytes) {
    std::lock_guard lock(mutex);
    bytes_in_calls -= bytes;
    bytes_freed.notify_all();
  }
};

SpoolDrain::FileAttempt SpoolDrain::replay_file(const fs::path& file, std::optional<Clock::time_point> deadline) {
  FileAttempt attempt;
  std::string error;
  HeadFile* head = load_head(file, error);
  if (head == nullptr) {
    attempt.result = FileResult::Permanent;
    attempt.error = std::move(error);
    return attempt;
  }
  // Each pass replays what is pending; a pass that quarantined a lone event
  // is followed by another, so the rest of the file drains in this cycle.
  while (true) {
    LaneState lanes(options_.max_batch_bytes);
    const std::size_t lane_count = std::max<std::size_t>(head->lanes.size(), 1);
    std::vector<std::thread> helpers;
    helpers.reserve(lane_count - 1);
    for (std::size_t i = 1; i < lane_count; ++i)
      helpers.emplace_back([&] { replay_lane(file, *head, deadline, lanes); });
    replay_lane(file, *head, deadline, lanes);
    for (auto& helper : helpers) helper.join();

    attempt.events_replayed += lanes.events_replayed.load();
    if (!lanes.failure) break;
    attempt.error = lanes.error;
    if (lanes.store_outcome) {
      attempt.result = judge_store_failure(file, *head, lanes, attempt);
      if (attempt.result == FileResult::Replayed) continue;  // an event was quarantined: go on with the rest
      return attempt;
    }
    attempt.result = *lanes.failure;
    if (lanes.drop_head) head_.reset();
    return attempt;
  }
  // Good records are stored; what follows them cannot be read, ever.
  if (head->scan.torn_tail) {
    attempt.result = FileResult::Permanent;
    attempt.error = "damaged data: " + head->scan.tail_reason;
  } else {
    attempt.result = FileResult::Replayed;
  }
  return attempt;
}

SpoolDrain::FileResult SpoolDrain::judge_store_failure(const fs::path& file, HeadFile& head, LaneState& lanes,
                                                       FileAttempt& attempt) {
  const ReplayOutcome& outcome = *lanes.store_outcome;
  const std::vector<std::size_t>& records = lanes.failed_records;
  const std::size_t first = records.front();
  const FailureJudgement judgement =
      judge_replay_failure(outcome, records.size(), head.failures[first],
                           PoisonPolicy{options_.max_permanent_attempts, options_.poison_attempts});
  const bool permanent = outcome.kind == ReplayOutcome::Kind::Permanent;
  const char* how = permanent ? "failed permanently" : "failed while the database answers other calls";
  switch (judgement.step) {
    case FailureStep::KeepForOutage:
      return FileResult::Transient;
    case FailureStep::ReplayEventsAlone:
      head.alone[lanes.failed_batch] = 1;
      spool_log()->error("spool replay of a batch of {} events of {} {}; its events are replayed one by one from "
                         "now on: {}",
                         records.size(), name_of(file), how, outcome.error);
      return permanent ? FileResult::Refused : FileResult::Suspect;
    case FailureStep::RetryLater:
    case FailureStep::Quarantine:
      break;
  }
  head.failures[first] = judgement.attempt;
  permanent_attempts_.store(judgement.attempt);
  consecutive_transient_.store(0);
  spool_log()->error("spool replay of {} event {} {} (attempt={}, max_attempts={}): {}", name_of(file), first, how,
                     judgement.attempt, judgement.max_attempts, outcome.error);
  if (judgement.step == FailureStep::RetryLater) return permanent ? FileResult::Refused : FileResult::Suspect;

  permanent_attempts_.store(0);
  if (head.scan.records.size() == 1 && !head.scan.torn_tail) {
    // The file holds nothing else: it goes to failed/ as it is.
    if (quarantine_whole_file(file, judgement.attempt)) return FileResult::Quarantined;
    return FileResult::Refused;
  }
  std::string framed;
  try {
    framed = SpoolFileReader(file).read_framed(head.scan.records[first]);
  } catch (const SpoolIoError& e) {
    spool_log()->error("cannot read event {} of {} to quarantine it: {}", first, name_of(file), e.what());
  }
  const std::uint64_t kept = framed.empty() ? 0 : quarantine_record(dir_, head.stem, first, framed);
  head.done[first] = 1;
  ledger_.record_event_quarantined(head.stem, kept);
  ++attempt.events_quarantined;
  spool_log()->error("spool event {} of {} {} after {} failures; the rest of the file drains on. It will never be "
                     "stored",
                     first, name_of(file), kept > 0 ? "moved to failed/ as a file of its own" : "dropped",
                     judgement.attempt);
  return FileResult::Replayed;
}

void SpoolDrain::replay_lane(const fs::path& file, HeadFile& head, std::optional<Clock::time_point> deadline,
                             LaneState& lanes) {
  std::optional<SpoolFileReader> reader;  // opened when this thread first has something to read
  try {
    while (!lanes.stop.load()) {
      const std::size_t run = lanes.next_lane.fetch_add(1);
      if (run >= head.lanes.size()) return;
      const BatchRun batches = head.lanes[run];
      bool pending = false;
      for (std::size_t b = batches.first; b < batches.second && !pending; ++b) {
        for (const std::size_t index : head.batches[b]) pending = pending || head.done[index] == 0;
      }
      if (!pending) continue;
      if (!reader) reader.emplace(file);
      if (!replay_run(*reader, head, batches, deadline, lanes)) return;
    }
  } catch (const SpoolIoError& e) {
    lanes.fail(FileResult::Permanent, e.what(), true);
  } catch (const std::exception& e) {
    // Unknown failure: keep the file. Good spool is never discarded on a guess.
    lanes.fail(FileResult::Transient, std::string("spool replay lane failed: ") + e.what());
  }
}

bool SpoolDrain::replay_run(SpoolFileReader& reader, HeadFile& head, BatchRun run,
                            std::optional<Clock::time_point> deadline, LaneState& lanes) {
  std::vector<std::size_t> pending;
  for (std::size_t b = run.first; b < run.second; ++b) {
    pending.clear();
    for (const std::size_t index : head.batches[b]) {
      if (head.done[index] == 0) pending.push_back(index);
    }
    if (pending.empty()) continue;
    if (lanes.stop.load()) return false;
    if (deadline && clock_.now() >= *deadline) {
      lanes.fail(FileResult::DeadlineReached, "recovery deadline reached");
      return false;
    }
    if (head.alone[b] == 0) {
      if (!store_records(reader, head, b, pending, lanes)) return false;
      continue;
    }
    for (const std::size_t index : pending) {
      if (lanes.stop.load()) return false;
      if (!store_records(reader, head, b, {index}, lanes)) return false;
    }
  }
  return true;
}

bool SpoolDrain::store_records(SpoolFileReader& reader, HeadFile& head, std::size_t batch,
                               const std::vector<std::size_t>& indices, LaneState& lanes) {
  std::uint64_t bytes = 0;
  for (const std::size_t index : indices) bytes += head.scan.records[index].body_bytes;
  if (!lanes.take_bytes(bytes)) return false;
  ReplayOutcome outcome;
  {
    std::vector<SpoolEvent> events;
    events.reserve(indices.size());
    try {
      for (const std::size_t index : indices) events.push_back(reader.read(head.scan.records[index]));
    } catch (...) {
      lanes.give_bytes(bytes);
      throw;
    }
    outcome = call_store(events);
  }  // the events go before their bytes are given back
  lanes.give_bytes(bytes);
  if (outcome.kind != ReplayOutcome::Kind::Ok) {
    lanes.fail_store(std::move(outcome), batch, indices);
    return false;
  }
  for (const std::size_t index : indices) head.done[index] = 1;
  lanes.events_replayed.fetch_add(indices.size());
  ledger_.record_replayed(head.stem, indices.size());
  ledger_.set_db_healthy(true);
  consecutive_transient_.store(0);
  permanent_attempts_.store(0);  // the file moved forward: not the same failure any more
  return true;
}

ReplayOutcome SpoolDrain::call_store(const std::vector<SpoolEvent>& batch) {
  try {
    return store_.replay(batch);
  } catch (const std::exception& e) {
    // Unknown failure: keep the file. Good spool is never discarded on a guess.
    return ReplayOutcome::transient(std::string("replay store threw: ") + e.what());
  } catch (...) {
    return ReplayOutcome::transient("replay store threw a non-standard exception");
  }
}

void SpoolDrain::finish_replayed_file(const fs::path& file) {
  const std::string stem = stem_of(name_of(file));
  std::error_code ec;
  fs::remove(file, ec);
  if (ec) {
    // Progress says every batch is stored, so the next cycle only retries the delete.
    spool_log()->error("cannot delete replayed spool file {}: {}", file.string(), ec.message());
    return;
  }
  ledger_.record_removed(stem);
  permanent_attempts_.store(0);
  permanent_head_.clear();
  head_.reset();
}

void SpoolDrain::note_transient_failure(const fs::path& file, const std::string& error) {
  ledger_.set_db_healthy(false);
  const unsigned streak = consecutive_transient_.fetch_add(1) + 1;
  // One warning when a streak starts; the rest is debug so an outage does not flood the log.
  if (streak == 1) {
    spool_log()->warn("spool replay of {} failed transiently, keeping it: {}", name_of(file), error);
  } else {
    spool_log()->debug("spool replay of {} failed transiently ({} in a row): {}", name_of(file), streak, error);
  }
  if (streak >= options_.transient_failures_before_cooldown) {
    const auto until = clock_.now() + options_.transient_cooldown;
    cooldown_until_.store(until.time_since_epoch().count());
    consecutive_transient_.store(0);
    spool_log()->warn("spool drain: {} consecutive transient failures, pausing replay for {} ms", streak,
                      options_.transient_cooldown.count());
  }
}

bool SpoolDrain::note_permanent_failure(const fs::path& file, const std::string& error) {
  const std::string stem = stem_of(name_of(file));
  if (permanent_head_ != stem) {
    permanent_head_ = stem;
    permanent_attempts_.store(0);
  }
  consecutive_transient_.store(0);
  const unsigned attempt = permanent_attempts_.fetch_add(1) + 1;
  spool_log()->error("spool replay of {} failed permanently (attempt={}, max_attempts={}): {}", name_of(file), attempt,
                     options_.max_permanent_attempts, error);
  if (attempt < options_.max_permanent_attempts) return false;
  return quarantine_whole_file(file, attempt);
}

bool SpoolDrain::quarantine_whole_file(const fs::path& file, unsigned failures) {
  const std::string stem = stem_of(name_of(file));
  std::error_code ec;
  const auto bytes = fs::file_size(file, ec);
  const QuarantineResult result = quarantine_file(dir_, file);
  if (result == QuarantineResult::Stuck) {
    spool_log()->error("spool file {} can be neither quarantined nor deleted; it blocks the drain", name_of(file));
    return false;
  }
  ledger_.record_quarantined(stem, result == QuarantineResult::Moved && !ec ? bytes : 0);
  spool_log()->error("spool file {} {} after {} failures; its unreplayed events will never be stored",
                     name_of(file), result == QuarantineResult::Moved ? "moved to failed/" : "deleted", failures);
  permanent_attempts_.store(0);
  permanent_head_.clear();
  head_.reset();
  return true;
}

RecoverySummary SpoolDrain::recover_at_startup(std::chrono::milliseconds budget) {
  std::lock_guard lock(cycle_mutex_);
  RecoverySummary summary;
  const auto deadline = clock_.now() + budget;
  const bool sync = writer_ != nullptr && writer_->options().fsync == config::FsyncMode::Batch;
  if (writer_ != nullptr) writer_->finalize_active();

  for (const auto& tmp : list_spool_files(dir_, kActiveExtension)) {
    const std::string stem = stem_of(name_of(tmp));
    try {
      const LeftoverFinalizeResult r = finalize_leftover_file(tmp, sync);
      if (r.removed) {
        ledger_.record_removed(stem);
        continue;
      }
      if (r.tail_cut) {
        ++summary.torn_tails_cut;
        std::error_code ec;
        const auto bytes = fs::file_size(r.finalized_path, ec);
        if (!ec) ledger_.record_resized(stem, bytes);
        spool_log()->warn("spool file {} had a torn tail (a crash mid-write); cut it off, kept {} events",
                          name_of(tmp), r.events);
      }
      ledger_.record_finalized(stem);
      ++summary.leftover_files_finalized;
    } catch (const SpoolIoError& e) {
      spool_log()->error("cannot finalize leftover spool file {}: {}", name_of(tmp), e.what());
    }
  }

  const auto files = list_spool_files(dir_, kFinalizedExtension);
  if (!files.empty())
    spool_log()->info("spool recovery: replaying {} file(s) ({} events) before serving", files.size(),
                      ledger_.pending_events());
  for (const auto& file : files) {
    if (clock_.now() >= deadline) {
      summary.stop = RecoverySummary::Stop::Deadline;
      break;
    }
    const FileAttempt attempt = replay_file(file, deadline);
    summary.events_replayed += attempt.events_replayed;
    if (attempt.result == FileResult::Replayed) {
      finish_replayed_file(file);
      ++summary.files_replayed;
      continue;
    }
    if (attempt.result == FileResult::Quarantined) continue;  // the files behind it are not blocked
    summary.error = attempt.error;
    if (attempt.result == FileResult::DeadlineReached) {
      summary.stop = RecoverySummary::Stop::Deadline;
      break;
    }
    if (attempt.result == FileResult::Transient) {
      note_transient_failure(file, attempt.error);
    } else if (attempt.result == FileResult::Permanent && note_permanent_failure(file, attempt.error)) {
      continue;  // quarantined: the files behind it are not blocked
    }
    ledger_.set_db_healthy(false);
    summary.stop = RecoverySummary::Stop::Failed;
    break;
  }
  summary.files_left = list_spool_files(dir_, kFinalizedExtension).size();
  if (summary.stop == RecoverySummary::Stop::Deadline) {
    spool_log()->warn("spool recovery stopped at its {} ms budget; {} file(s) left to the background drain",
                      budget.count(), summary.files_left);
  } else if (summary.stop == RecoverySummary::Stop::Failed) {
    spool_log()->warn("spool recovery stopped on a failure ({}); {} file(s) left to the background drain",
                      summary.error, summary.files_left);
  } else if (summary.files_replayed > 0) {
    spool_log()->info("spool recovery replayed {} file(s), {} events", summary.files_replayed,
                      summary.events_replayed);
  }
  return summary;
}

}  // namespace queen::spool
