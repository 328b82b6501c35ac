#pragma once
// Group commit: concurrent requests share one database call. The one
// mechanism behind push, ack and pop combining (docs/combining.md).
//
// Leader/follower: a request that finds a free call slot and is first in line
// among the requests it could share a call with becomes the leader, takes
// itself and the requests queued behind it that may share its call (`joins`,
// up to `max_weight` in total), makes one call and splits the rows back per
// request. Requests that arrive while their slots are busy queue up and ride
// the next call. When idle, a request leads alone at once: no added latency,
// and `call` sees a batch of one (its lone procedure call).
//
// Slots are counted per class of requests that could share a call: at most
// `max_concurrent_calls` calls led by requests `joins` would accept together.
// Requests that can never share (pops of different queues, pushes of different
// producers) do not wait for each other; how many database calls run at once
// overall is the admission lanes' business (src/flow).
//
// Failure handling: a transient failure of a combined call is every
// participant's failure (the database is down for all of them). A permanent
// failure of a combined call is retried per request, so one bad request
// cannot fail the others; a request that fails alone gets its own error. A
// failure to split the rows (the SQL and the broker disagree) is every
// participant's error: the call happened, retrying it would repeat it.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace queen::broker {

struct CombinerStats {
  std::uint64_t calls = 0;              // database calls made
  std::uint64_t combined_requests = 0;  // requests that shared a call with another
  std::uint64_t solo_retries = 0;       // requests retried alone after a permanent failure
};

struct CombinerLimits {
  std::size_t max_weight = 1;    // total weight (items, or requests) of one call
  int max_concurrent_calls = 1;  // calls in flight at once
};

// `Rows`: what one call returns; `Result`: what one request gets back.
template <class Request, class Rows, class Result>
class Combiner {
 public:
  using Batch = std::vector<const Request*>;  // in line order; front() is the leader
  struct Hooks {
    // Whether `candidate` may share the call `batch` is about to make.
    std::function<bool(const Batch& batch, const Request& candidate)> joins;
    // A request's share of `max_weight`.
    std::function<std::size_t(const Request& request)> weight;
    // One database call for the whole batch (a batch of one: the lone call).
    std::function<Rows(const Batch& batch)> call;
    // One Result per request of `batch`, in batch order; throws when the rows
    // do not fit the batch.
    std::function<std::vector<Result>(Rows rows, const Batch& batch)> split;
    // Classifies a call failure: true when it is transient (no per-request retry).
    std::function<bool(const std::exception_ptr&)> is_transient;
  };

  Combiner(Hooks hooks, CombinerLimits limits) : hooks_(std::move(hooks)), limits_(limits) {
    limits_.max_weight = std::max<std::size_t>(1, limits_.max_weight);
    limits_.max_concurrent_calls = std::max(1, limits_.max_concurrent_calls);
  }

  // Returns this request's result. Throws what its call threw.
  Result submit(const Request& request) {
    Pending me{&request, Result{}, nullptr, false, false};
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.push_back(&me);
    while (!me.done) {
      // `me` may already ride another leader's call (no longer queued): then
      // it only waits for that call to finish.
      if (may_lead(me)) {
        lead(lock, me);
      } else {
        changed_.wait(lock);
      }
    }
    lock.unlock();
    if (me.retry_alone) return call_alone(request);
    if (me.error) std::rethrow_exception(me.error);
    return std::move(me.result);
  }

  CombinerStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  // Requests queued behind busy calls right now.
  std::size_t waiting() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_.size();
  }

 private:
  struct Pending {
    const Request* request;
    Result result{};
    std::exception_ptr error;
    bool done = false;
    bool retry_alone = false;
  };

  bool shareable(const Request& a, const Request& b) const { return hooks_.joins(Batch{&a}, b); }

  // Calls in flight led by requests that could share a call with `request`.
  int busy_slots(const Request& request) const {
    return static_cast<int>(std::count_if(in_flight_.begin(), in_flight_.end(),
                                          [&](const Request* leader) { return shareable(*leader, request); }));
  }

  // Still queued, first among the queued requests it could share with, and a
  // slot of its class is free. Called with the mutex held.
  bool may_lead(const Pending& me) const {
    const auto mine = std::find(waiting_.begin(), waiting_.end(), &me);
    if (mine == waiting_.end()) return false;  // riding another leader's call
    for (auto it = waiting_.begin(); it != mine; ++it) {
      if (shareable(*(*it)->request, *me.request)) return false;
    }
    return busy_slots(*me.request) < limits_.max_concurrent_calls;
  }

  // Called with the mutex held by a request that may lead; returns with it held.
  void lead(std::unique_lock<std::mutex>& lock, Pending& me) {
    const std::vector<Pending*> batch = take_batch(me);
    const Request* leader = batch.front()->request;
    in_flight_.push_back(leader);
    ++stats_.calls;
    if (batch.size() > 1) stats_.combined_requests += batch.size();
    // A request of another class may have been queued behind this batch.
    if (!waiting_.empty()) changed_.notify_all();
    lock.unlock();
    execute(batch);
    lock.lock();
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), leader));
    for (Pending* p : batch) p->done = true;
    // Followers learn they are done; the next in line may lead.
    changed_.notify_all();
  }

  // `leader` and the queued requests that may share its call, in line order
  // (none queued before it could: see may_lead).
  std::vector<Pending*> take_batch(Pending& leader) {
    std::vector<Pending*> batch{&leader};
    Batch requests{leader.request};
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &leader));
    std::size_t weight = hooks_.weight(*requests.front());
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      Pending* candidate = *it;
      if (!hooks_.joins(requests, *candidate->request)) {
        ++it;  // it needs another call; those behind it may still fit this one
        continue;
      }
      const std::size_t candidate_weight = hooks_.weight(*candidate->request);
      if (weight + candidate_weight > limits_.max_weight) break;  // keep FIFO: stop at the first misfit
      weight += candidate_weight;
      batch.push_back(candidate);
      requests.push_back(candidate->request);
      it = waiting_.erase(it);
    }
    return batch;
  }

  void execute(const std::vector<Pending*>& batch) {
    Batch requests;
    requests.reserve(batch.size());
    for (const Pending* p : batch) requests.push_back(p->request);
    Rows rows;
    try {
      rows = hooks_.call(requests);
    } catch (...) {
      const std::exception_ptr error = std::current_exception();
      const bool retry_each = batch.size() > 1 && !hooks_.is_transient(error);
      for (Pending* p : batch) {
        if (retry_each) {
          p->retry_alone = true;
        } else {
          p->error = error;
        }
      }
      return;
    }
    try {
      std::vector<Result> results = hooks_.split(std::move(rows), requests);
      if (results.size() != batch.size()) throw std::logic_error("combiner: split answered the wrong number of requests");
      for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
    } catch (...) {
      // Every participant gets the error: none may be left waiting for rows.
      for (Pending* p : batch) p->error = std::current_exception();
    }
  }

  Result call_alone(const Request& request) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return busy_slots(request) < limits_.max_concurrent_calls; });
      in_flight_.push_back(&request);
      ++stats_.calls;
      ++stats_.solo_retries;
    }
    struct SlotRelease {
      Combiner* self;
      const Request* request;
      ~SlotRelease() {
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->in_flight_.erase(std::find(self->in_flight_.begin(), self->in_flight_.end(), request));
        self->changed_.notify_all();
      }
    } release{this, &request};
    const Batch alone{&request};
    std::vector<Result> results = hooks_.split(hooks_.call(alone), alone);
    if (results.size() != 1) throw std::logic_error("combiner: split answered the wrong number of requests");
    return std::move(results.front());
  }

  const Hooks hooks_;
  CombinerLimits limits_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending*> waiting_;
  std::vector<const Request*> in_flight_;  // the leader of each call in flight
  CombinerStats stats_;
};

}  // namespace queen::broker
