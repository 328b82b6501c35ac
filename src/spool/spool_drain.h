#pragma once
// The drain: replays finalized spool files (.buf) into the database, oldest
// first, and decides per failure whether to keep, retry or give up on a file.
//
// One call of run_cycle():
//   1. does nothing while paused (push maintenance) or during a cooldown;
//   2. finalizes the writer's active file so its events become drainable;
//   3. lists .buf files in FIFO order and replays up to files_per_cycle_healthy
//      of them while the database is considered healthy, files_per_cycle_unhealthy
//      (1) while it is not; each file takes a ReplayGate permit first;
//   4. a file is replayed in batches of up to max_batch events and
//      max_batch_bytes bytes (an event larger than that is a batch of its
//      own; plan_replay), one ReplayStore::replay() per batch; a batch may
//      hold several groups. The groups are spread over up to replay_lanes
//      lanes replayed at once (one thread each, the drain's own among them);
//      the batches of a lane are stored one after the other, in order, so the
//      order inside a partition is kept, and the lanes of a file together hold
//      at most max_batch_bytes of records in calls at once (or one larger
//      event alone). A fully replayed file is deleted.
//      Outage (a transient failure after which the database did not answer):
//      keep the file, mark the database unhealthy, end the cycle; every
//      transient_failures_before_cooldown consecutive ones start a cooldown of
//      transient_cooldown. Nothing is ever quarantined for an outage.
//      A batch refused by the database (permanent), or failing transiently
//      while the database answers other calls (a poison suspect): a batch of
//      several events is replayed event by event from then on; a lone event
//      is counted and, at max_permanent_attempts (permanent) or
//      poison_attempts (suspect) failures, moved to failed/ on its own (the
//      whole file when it holds nothing else), and the rest of the file goes
//      on in the same cycle. Each failure is an ERROR log line with
//      attempt/max_attempts. Below the bound the cycle ends (the head blocks
//      the FIFO for at most that many cycles).
//      An unreadable or damaged file: count consecutive failures of the head
//      file; at max_permanent_attempts move the file to failed/ (delete it if
//      the move fails) and go on with newer files in the same cycle.
//      A failure in one lane stops every lane at its next batch.
// Events a previous attempt stored are skipped on a retry of the same file
// (progress is kept in memory; replay is idempotent anyway).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "spool/replay.h"
#include "spool/replay_plan.h"
#include "spool/spool_file.h"
#include "util/clock.h"

namespace queen::spool {

using util::Clock;  // the one injectable clock (util/clock.h)

class SpoolLedger;
class SpoolWriter;

// max_batch, max_batch_bytes and poison_attempts default to the configuration's (config::SpoolConfig).
struct SpoolDrainOptions {
  std::size_t max_batch = static_cast<std::size_t>(config::Config::defaults().spool.max_batch);
  // 0: no byte bound.
  std::uint64_t max_batch_bytes = static_cast<std::uint64_t>(config::Config::defaults().spool.max_batch_bytes);
  // Lanes (sets of partitions) of one file stored concurrently: one unless the broker passes
  // FILE_BUFFER_REPLAY_LANES, so a drain built by hand replays in file order.
  std::size_t replay_lanes = 1;
  std::size_t files_per_cycle_healthy = 10;
  std::size_t files_per_cycle_unhealthy = 1;
  unsigned max_permanent_attempts = 5;
  // Suspect failures of a lone event before quarantine.
  unsigned poison_attempts = static_cast<unsigned>(config::Config::defaults().spool.poison_attempts);
  unsigned transient_failures_before_cooldown = 10;
  std::chrono::milliseconds transient_cooldown{5000};
};

struct CycleReport {
  enum class Result {
    Paused,            // maintenance: nothing done
    CoolingDown,       // circuit breaker open: nothing done
    Idle,              // no .buf file to replay
    Drained,           // every listed file was replayed (or quarantined)
    FileBudgetReached, // files remain for the next cycle
    NotAdmitted,       // the gate refused a permit
    TransientFailure,
    PermanentFailure,
    SuspectFailure,    // failed transiently while the database answered: counted toward quarantine
  };
  Result result = Result::Idle;
  std::size_t files_replayed = 0;     // replayed completely and deleted
  std::size_t files_quarantined = 0;
  std::size_t events_quarantined = 0;  // lone events moved to failed/ (their files stay)
  std::size_t events_replayed = 0;
  std::string error;                  // of the failure that ended the cycle
};

struct RecoverySummary {
  enum class Stop { Completed, Failed, Deadline };
  Stop stop = Stop::Completed;
  std::size_t leftover_files_finalized = 0;  // .tmp -> .buf
  std::size_t torn_tails_cut = 0;
  std::size_t files_replayed = 0;
  std::size_t events_replayed = 0;
  std::size_t files_left = 0;  // handed to the background drain
  std::string error;
};

const char* to_string(CycleReport::Result result) noexcept;
const char* to_string(RecoverySummary::Stop stop) noexcept;

class SpoolDrain {
 public:
  // `writer` may be null (no active file to finalize). `store`, `ledger`,
  // `writer` and `clock` must outlive the drain.
  SpoolDrain(std::filesystem::path dir, SpoolDrainOptions options, ReplayStore& store, SpoolLedger& ledger,
             SpoolWriter* writer, const Clock& clock);

  // One drain cycle (see above). Serialised with recover_at_startup().
  CycleReport run_cycle();

  // Boot pass, before the listener binds: finalizes leftover .tmp files
  // (cutting a torn tail off) and replays every .buf in FIFO order until done,
  // until a failure (the database is marked unhealthy, the rest is left to the
  // drain) or until `budget` elapsed (a warning; the rest is left to the drain).
  // Does not take ReplayGate permits: there is no live traffic yet.
  RecoverySummary recover_at_startup(std::chrono::milliseconds budget = std::chrono::hours(1));

  // An optional limit on replay work; null = always admitted.
  // Set it before the drain loop starts.
  void set_replay_gate(ReplayGate* gate) { gate_ = gate; }

  // Paused (push maintenance), a cycle does nothing at all, not even finalize.
  void pause(bool paused) { paused_.store(paused); }
  bool paused() const { return paused_.load(); }

  bool cooling_down() const;
  unsigned consecutive_transient_failures() const { return consecutive_transient_.load(); }
  unsigned head_permanent_attempts() const { return permanent_attempts_.load(); }
  const SpoolDrainOptions& options() const { return options_; }

 private:
  enum class FileResult {
    Replayed,
    Transient,        // outage
    Permanent,        // unreadable or damaged file (counted per file)
    Refused,          // a batch or lone event refused by the database, below its bound (counted per event)
    Suspect,          // a batch or lone event failing while the database answers, below its bound
    Quarantined,      // the file went to failed/ (it held nothing but the poison event)
    DeadlineReached,
  };
  struct FileAttempt {
    FileResult result = FileResult::Replayed;
    std::size_t events_replayed = 0;
    std::size_t events_quarantined = 0;
    std::string error;
  };

  FileAttempt replay_file(const std::filesystem::path& file, std::optional<Clock::time_point> deadline);
  struct LaneState;
  struct HeadFile;
  void replay_lane(const std::filesystem::path& file, HeadFile& head, std::optional<Clock::time_point> deadline,
                   LaneState& lanes);
  // Stores the batches [run.first, run.second) in order; false when it stopped on a failure.
  bool replay_run(SpoolFileReader& reader, HeadFile& head, BatchRun run, std::optional<Clock::time_point> deadline,
                  LaneState& lanes);
  // Stores the records `indices` (pending ones of batch `batch`) in one call; false on a failure.
  bool store_records(SpoolFileReader& reader, HeadFile& head, std::size_t batch, const std::vector<std::size_t>& indices,
                     LaneState& lanes);
  ReplayOutcome call_store(const std::vector<SpoolEvent>& batch);
  // After the lanes stopped on a failed store call: the poison rule (poison_policy.h).
  FileResult judge_store_failure(const std::filesystem::path& file, HeadFile& head, LaneState& lanes,
                                 FileAttempt& attempt);
  void finish_replayed_file(const std::filesystem::path& file);
  void note_transient_failure(const std::filesystem::path& file, const std::string& error);
  // Returns true when the file left the spool directory (quarantined or deleted).
  bool note_permanent_failure(const std::filesystem::path& file, const std::string& error);
  // Moves the file to failed/ (deletes it when that fails); false when neither worked.
  bool quarantine_whole_file(const std::filesystem::path& file, unsigned failures);

  const std::filesystem::path dir_;
  const SpoolDrainOptions options_;
  ReplayStore& store_;
  SpoolLedger& ledger_;
  SpoolWriter* const writer_;
  const Clock& clock_;
  ReplayGate* gate_ = nullptr;

  std::mutex cycle_mutex_;  // one cycle (or the recovery pass) at a time
  std::atomic<bool> paused_{false};
  std::atomic<unsigned> consecutive_transient_{0};
  std::atomic<unsigned> permanent_attempts_{0};
  // Cooldown end as steady-clock ticks since its epoch; 0 = no cooldown.
  std::atomic<Clock::time_point::rep> cooldown_until_{0};

  // The head file's validated records and batch plan, kept between attempts
  // so an outage does not re-read and re-parse the same file every cycle, and
  // so a retry skips the batches already stored. Finalized files never
  // change; a different size means a different file and a fresh scan.
  struct HeadFile {
    std::string stem;
    std::uint64_t file_bytes = 0;
    FileScan scan;
    std::vector<ReplayBatch> batches;
    std::vector<BatchRun> lanes;       // the batches of each lane
    // Written only by the thread replaying the record's lane, or between attempts:
    std::vector<char> done;            // per record: stored, or quarantined
    std::vector<char> alone;           // per batch: its events are replayed one by one (it failed whole)
    std::vector<unsigned> failures;    // per record: failures alone while the database answered
  };
  // Returns null with `error` set when the file cannot be read.
  HeadFile* load_head(const std::filesystem::path& file, std::string& error);

  // Guarded by cycle_mutex_.
  std::string permanent_head_;  // stem of the file the permanent counter belongs to
  std::optional<HeadFile> head_;
};

}  // namespace queen::spool
