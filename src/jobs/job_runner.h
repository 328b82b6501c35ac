#pragma once
// Periodic single-runner jobs (the retention sweep, max-wait eviction, the
// statistics reconciler). Every broker runs a JobRunner; for each cycle of each
// job exactly one broker is elected by the database (queen.try_begin_job_cycle:
// an advisory lock plus a row per (job, cycle)) and runs it, the others skip
// that cycle. A run is bounded: it gets a deadline at the end of its cycle and
// does its work in bounded batches, each a short transaction.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "util/background_worker.h"

namespace queen::jobs {

// The database side of the election; an interface so the runner is testable
// without a database. Implementations throw on failure.
class JobElection {
 public:
  virtual ~JobElection() = default;
  // True when this broker must run the current cycle of `job`.
  virtual bool try_begin_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id) = 0;
  // Records the end of this broker's newest run of `job` (informational).
  virtual void finish_cycle(const std::string& job, const std::string& server_id, const std::string& result_json) = 0;
};

// What a running job can see: its deadline (on the runner's clock) and
// whether the broker is stopping.
class JobContext {
 public:
  JobContext(const util::Clock& clock, util::Clock::time_point deadline, const std::atomic<bool>& stopping)
      : clock_(clock), deadline_(deadline), stopping_(stopping) {}
  // False once the run should end: deadline reached or broker stopping. A job
  // checks it between batches (a batch in flight always completes).
  bool should_continue() const { return !stopping_.load(std::memory_order_relaxed) && clock_.now() < deadline_; }
  util::Clock::time_point deadline() const { return deadline_; }

 private:
  const util::Clock& clock_;
  util::Clock::time_point deadline_;
  const std::atomic<bool>& stopping_;
};

// A job's body: does one cycle's work, returns a JSON object text summarizing
// it (recorded in queen.job_runs.result). Throws on failure.
using JobFunction = std::function<std::string(const JobContext&)>;

struct JobSpec {
  std::string name;       // the election key: identical on every broker
  std::int64_t cycle_ms;  // the job's period (e.g. RETENTION_INTERVAL)
  JobFunction run;
};

struct JobRunnerOptions {
  std::string server_id;           // QUEEN_SERVER_ID
  int max_poll_ms = 5000;          // longest wait between election attempts (clock skew safety)
  int boundary_grace_ms = 100;     // attempt this long after a cycle boundary
  int min_run_budget_ms = 1000;    // a run elected late in its cycle still gets this long
};

struct JobCounters {
  std::uint64_t attempts = 0;  // election attempts
  std::uint64_t runs = 0;      // cycles this broker was elected for and ran
  std::uint64_t failures = 0;  // elections or runs that threw
};

class JobRunner {
 public:
  // Cycle boundaries are read from `clock`'s system time (they are shared by
  // every broker), deadlines and sleeps from its steady time; `clock` must
  // outlive the runner. Throws std::invalid_argument on an empty server id or
  // non-positive option.
  JobRunner(JobRunnerOptions options, JobElection& election, const util::Clock& clock);
  ~JobRunner();  // stop()s
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Registers a job before start(). Throws std::invalid_argument on an empty
  // or duplicate name, a non-positive cycle or an empty function.
  void add(JobSpec spec);
  // One thread per job, so a long retention run never delays the reconciler.
  // Once: a stopped runner stays stopped.
  void start();
  // Signals the jobs (should_continue() turns false) and joins the threads.
  void stop();

  // One election attempt for `job` and, when elected, the run. Returns true
  // when this broker ran the cycle. Never throws (failures are counted and
  // logged). Public for tests and for a manual trigger; the threads call it.
  bool attempt(const std::string& job);

  JobCounters counters(const std::string& job) const;

 private:
  struct Job {
    JobSpec spec;
    std::atomic<std::uint64_t> attempts{0};
    std::atomic<std::uint64_t> runs{0};
    std::atomic<std::uint64_t> failures{0};
    std::unique_ptr<util::BackgroundWorker> worker;  // from start()
  };
  std::int64_t next_attempt_delay(const Job& job) const;
  bool attempt(Job& job);

  const JobRunnerOptions options_;
  JobElection& election_;
  const util::Clock& clock_;
  std::map<std::string, std::unique_ptr<Job>> jobs_;

  std::atomic<bool> stopping_{false};  // what every JobContext reads
  std::mutex mutex_;
  bool started_ = false;  // guarded by mutex_
};

// A job body that calls `step(batch_size)` until a step returns fewer than
// batch_size rows (the work is done), max_batches steps ran, or the context
// says stop. Each step is meant to be one short transaction. The summary is
// {"rows": <total>, "batches": <steps>, "complete": <bool>}.
JobFunction batched_job(std::function<int(int batch_size)> step, int batch_size, int max_batches);

}  // namespace queen::jobs
