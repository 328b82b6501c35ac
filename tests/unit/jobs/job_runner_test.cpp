#include "jobs/job_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"

using namespace std::chrono_literals;
using queen::jobs::batched_job;
using queen::jobs::JobContext;
using queen::jobs::JobElection;
using queen::jobs::JobRunner;
using queen::jobs::JobRunnerOptions;
using queen::jobs::JobSpec;
using queen::test_support::advance_until;
using queen::test_support::ManualClock;

namespace {

// The database's rule in memory: one winner per (job, cycle), where the cycle
// is chosen by the test rather than by a clock.
class FakeElection : public JobElection {
 public:
  bool try_begin_cycle(const std::string& job, std::int64_t, const std::string& server_id) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (fail) throw std::runtime_error("database unreachable");
    const auto inserted = winners.emplace(std::make_pair(job, cycle), server_id).second;
    return inserted;
  }
  void finish_cycle(const std::string& job, const std::string& server_id, const std::string& result) override {
    std::lock_guard<std::mutex> lock(mutex);
    finished.push_back(job + "/" + server_id + "/" + result);
  }
  std::mutex mutex;
  std::int64_t cycle = 1;
  bool fail = false;
  std::map<std::pair<std::string, std::int64_t>, std::string> winners;
  std::vector<std::string> finished;
};

JobRunnerOptions options(const std::string& server_id) {
  JobRunnerOptions o;
  o.server_id = server_id;
  o.max_poll_ms = 20;
  o.boundary_grace_ms = 0;
  o.min_run_budget_ms = 1000;
  return o;
}

JobSpec counting_job(const std::string& name, int& runs) {
  return JobSpec{name, 60'000, [&runs](const JobContext&) {
                   ++runs;
                   return std::string(R"({"ok": true})");
                 }};
}

}  // namespace

TEST(JobRunner, OnlyTheElectedBrokerRunsACycle) {
  ManualClock clock;
  FakeElection election;
  int runs_a = 0, runs_b = 0;
  JobRunner a(options("a"), election, clock), b(options("b"), election, clock);
  a.add(counting_job("retention", runs_a));
  b.add(counting_job("retention", runs_b));
  EXPECT_TRUE(a.attempt("retention"));
  EXPECT_FALSE(b.attempt("retention"));
  EXPECT_FALSE(a.attempt("retention"));  // same cycle: not again
  EXPECT_EQ(runs_a, 1);
  EXPECT_EQ(runs_b, 0);
  election.cycle = 2;
  EXPECT_TRUE(b.attempt("retention"));
  EXPECT_EQ(runs_b, 1);
  EXPECT_EQ(a.counters("retention").runs, 1u);
  EXPECT_EQ(a.counters("retention").attempts, 2u);
}

TEST(JobRunner, RecordsTheResultOfARun) {
  ManualClock clock;
  FakeElection election;
  int runs = 0;
  JobRunner a(options("a"), election, clock);
  a.add(counting_job("stats", runs));
  a.attempt("stats");
  ASSERT_EQ(election.finished.size(), 1u);
  EXPECT_EQ(election.finished[0], R"(stats/a/{"ok": true})");
}

TEST(JobRunner, AFailingRunIsCountedAndStillFinishesTheCycle) {
  ManualClock clock;
  FakeElection election;
  JobRunner a(options("a"), election, clock);
  a.add(JobSpec{"boom", 60'000, [](const JobContext&) -> std::string { throw std::runtime_error("no"); }});
  EXPECT_TRUE(a.attempt("boom"));
  EXPECT_EQ(a.counters("boom").failures, 1u);
  EXPECT_EQ(a.counters("boom").runs, 0u);
  ASSERT_EQ(election.finished.size(), 1u);
  EXPECT_EQ(election.finished[0], R"(boom/a/{"error": true})");
}

TEST(JobRunner, AFailedElectionSkipsTheRun) {
  ManualClock clock;
  FakeElection election;
  election.fail = true;
  int runs = 0;
  JobRunner a(options("a"), election, clock);
  a.add(counting_job("stats", runs));
  EXPECT_FALSE(a.attempt("stats"));
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(a.counters("stats").failures, 1u);
}

TEST(JobRunner, RejectsBadJobs) {
  ManualClock clock;
  FakeElection election;
  int runs = 0;
  JobRunner a(options("a"), election, clock);
  EXPECT_THROW(a.add(JobSpec{"", 1000, [](const JobContext&) { return std::string(); }}), std::invalid_argument);
  EXPECT_THROW(a.add(JobSpec{"x", 0, [](const JobContext&) { return std::string(); }}), std::invalid_argument);
  EXPECT_THROW(a.add(JobSpec{"x", 1000, nullptr}), std::invalid_argument);
  a.add(counting_job("x", runs));
  EXPECT_THROW(a.add(counting_job("x", runs)), std::invalid_argument);
  EXPECT_THROW(JobRunner(options(""), election, clock), std::invalid_argument);
}

TEST(JobRunner, ThreadsAttemptEveryPollAndStopPromptly) {
  ManualClock clock;
  FakeElection election;
  int runs = 0;
  JobRunner a(options("a"), election, clock);
  a.add(counting_job("stats", runs));
  a.start();
  // Every poll of 20 ms on the runner's clock makes an attempt.
  ASSERT_TRUE(advance_until(clock, [&] { return a.counters("stats").attempts >= 3; }));
  const auto begin = std::chrono::steady_clock::now();
  a.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 500ms);
  EXPECT_GE(a.counters("stats").attempts, 3u);
  EXPECT_EQ(runs, 1);  // one cycle, one run, however many attempts
}

TEST(BatchedJob, StepsUntilAShortBatch) {
  ManualClock clock;
  std::atomic<bool> stopping{false};
  int remaining = 25;
  std::vector<int> asked;
  auto job = batched_job(
      [&](int n) {
        asked.push_back(n);
        const int done = std::min(n, remaining);
        remaining -= done;
        return done;
      },
      10, 100);
  const JobContext context(clock, clock.now() + 10s, stopping);
  EXPECT_EQ(job(context), R"({"rows": 25, "batches": 3, "complete": true})");
  EXPECT_EQ(asked, (std::vector<int>{10, 10, 10}));
}

TEST(BatchedJob, IsBoundedByMaxBatches) {
  ManualClock clock;
  std::atomic<bool> stopping{false};
  auto job = batched_job([](int n) { return n; }, 10, 4);
  const JobContext context(clock, clock.now() + 10s, stopping);
  EXPECT_EQ(job(context), R"({"rows": 40, "batches": 4, "complete": false})");
}

TEST(BatchedJob, StopsAtTheDeadlineOrOnStop) {
  ManualClock clock;
  std::atomic<bool> stopping{false};
  int steps = 0;
  auto job = batched_job([&](int n) { ++steps; return n; }, 10, 1000);
  const JobContext expired(clock, clock.now(), stopping);
  EXPECT_EQ(job(expired), R"({"rows": 0, "batches": 0, "complete": false})");
  stopping = true;
  const JobContext stopped(clock, clock.now() + 10s, stopping);
  job(stopped);
  EXPECT_EQ(steps, 0);
}
