#include "jobs/job_runner.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "jobs/cycle.h"

namespace queen::jobs {
namespace {

void require_positive(std::int64_t value, const char* name) {
  if (value <= 0) throw std::invalid_argument(std::string("job runner option ") + name + " must be positive");
}

}  // namespace

JobRunner::JobRunner(JobRunnerOptions options, JobElection& election, const util::Clock& clock)
    : options_(std::move(options)), election_(election), clock_(clock) {
  if (options_.server_id.empty()) throw std::invalid_argument("job runner needs a server id");
  require_positive(options_.max_poll_ms, "max_poll_ms");
  require_positive(options_.min_run_budget_ms, "min_run_budget_ms");
  if (options_.boundary_grace_ms < 0) throw std::invalid_argument("job runner boundary_grace_ms must not be negative");
}

JobRunner::~JobRunner() { stop(); }

void JobRunner::add(JobSpec spec) {
  if (spec.name.empty()) throw std::invalid_argument("a job needs a name");
  if (spec.cycle_ms <= 0) throw std::invalid_argument("job " + spec.name + ": cycle must be positive");
  if (!spec.run) throw std::invalid_argument("job " + spec.name + ": no function");
  std::lock_guard<std::mutex> lock(mutex_);
  if (started_) throw std::logic_error("job " + spec.name + " added after start()");
  if (jobs_.count(spec.name)) throw std::invalid_argument("job " + spec.name + " added twice");
  auto job = std::make_unique<Job>();
  const std::string name = spec.name;
  job->spec = std::move(spec);
  jobs_.emplace(name, std::move(job));
}

void JobRunner::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (started_ || stopping_) return;
  started_ = true;
  for (auto& [name, job] : jobs_) {
    Job* j = job.get();
    spdlog::info("jobs: {} every {} ms (server {})", name, j->spec.cycle_ms, options_.server_id);
    // attempt() never throws, so the retry delay is only a formality.
    j->worker = std::make_unique<util::BackgroundWorker>(
        "job-" + name, clock_,
        [this, j] {
          attempt(*j);
          return clock_.now() + std::chrono::milliseconds(next_attempt_delay(*j));
        },
        std::chrono::milliseconds(options_.max_poll_ms));
    j->worker->start(clock_.now() + std::chrono::milliseconds(next_attempt_delay(*j)));
  }
}

void JobRunner::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  // First, for every job at once: a run in progress ends after its batch.
  stopping_ = true;
  for (auto& [name, job] : jobs_) {
    if (job->worker) job->worker->stop();
  }
}

std::int64_t JobRunner::next_attempt_delay(const Job& job) const {
  return next_attempt_delay_ms(clock_.system_now_ms(), job.spec.cycle_ms, options_.max_poll_ms,
                               options_.boundary_grace_ms);
}

bool JobRunner::attempt(const std::string& job) {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) throw std::invalid_argument("unknown job " + job);
  return attempt(*it->second);
}

bool JobRunner::attempt(Job& job) {
  const auto& spec = job.spec;
  job.attempts.fetch_add(1, std::memory_order_relaxed);
  bool elected = false;
  try {
    elected = election_.try_begin_cycle(spec.name, spec.cycle_ms, options_.server_id);
  } catch (const std::exception& e) {
    job.failures.fetch_add(1, std::memory_order_relaxed);
    spdlog::warn("jobs: {}: election failed: {}", spec.name, e.what());
    return false;
  }
  if (!elected) return false;

  const auto budget = run_budget_ms(clock_.system_now_ms(), spec.cycle_ms, options_.min_run_budget_ms);
  const auto started = clock_.now();
  const JobContext context(clock_, started + std::chrono::milliseconds(budget), stopping_);
  std::string result;
  try {
    result = spec.run(context);
    job.runs.fetch_add(1, std::memory_order_relaxed);
  } catch (const std::exception& e) {
    // The cycle counts as taken: the next cycle retries, on whichever broker wins it.
    job.failures.fetch_add(1, std::memory_order_relaxed);
    spdlog::warn("jobs: {}: run failed: {}", spec.name, e.what());
    result = R"({"error": true})";
  }
  const auto took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - started).count();
  spdlog::debug("jobs: {}: ran in {} ms: {}", spec.name, took_ms, result);
  try {
    election_.finish_cycle(spec.name, options_.server_id, result);
  } catch (const std::exception& e) {
    spdlog::debug("jobs: {}: could not record the end of the run: {}", spec.name, e.what());
  }
  return true;
}

JobCounters JobRunner::counters(const std::string& job) const {
  JobCounters c;
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) return c;
  c.attempts = it->second->attempts.load(std::memory_order_relaxed);
  c.runs = it->second->runs.load(std::memory_order_relaxed);
  c.failures = it->second->failures.load(std::memory_order_relaxed);
  return c;
}

JobFunction batched_job(std::function<int(int batch_size)> step, int batch_size, int max_batches) {
  if (!step) throw std::invalid_argument("batched_job needs a step");
  if (batch_size <= 0 || max_batches <= 0) throw std::invalid_argument("batched_job needs positive bounds");
  return [step = std::move(step), batch_size, max_batches](const JobContext& context) {
    std::int64_t rows = 0;
    int batches = 0;
    bool complete = false;
    while (batches < max_batches && context.should_continue()) {
      const int n = step(batch_size);
      ++batches;
      rows += n > 0 ? n : 0;
      if (n < batch_size) {
        complete = true;
        break;
      }
    }
    return "{\"rows\": " + std::to_string(rows) + ", \"batches\": " + std::to_string(batches) +
           ", \"complete\": " + (complete ? "true" : "false") + "}";
  };
}

}  // namespace queen::jobs
