#pragma once
// Group commit: concurrent requests share one database call. The one
// mechanism behind push, ack and pop combining (docs/combining.md).
//
// Leader/follower: a request that finds a free call slot and is first in line
// among the requests it could share a call with becomes the leader, takes
// itself and the requests queued behind it that may share its call (`joins`,
// up to `max_weight` in total and, with a `bytes` hook, up to `max_bytes` of
// request bytes: a request larger than that rides alone), makes one call and splits the rows back per
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
// Admission (docs/flow-control.md): with an arbiter, every call holds one slot
// of the combiner's lane. The leader takes it after its class's call slot and
// before it gathers the batch (requests arriving meanwhile ride along), so a
// tight lane still serves many requests per call; a solo retry takes its two
// slots in the same order, so no two callers each hold what the other waits
// for. The line of requests waiting for a call is the lane's wait queue: past
// the lane's queue bound of waiting requests, or after its wait bound (or the
// caller's deadline) without riding a call, a request is refused with
// LaneRefused and its call never happens.
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

#include "broker/admission.h"
#include "flow/arbiter.h"

namespace queen::broker {

struct CombinerStats {
  std::uint64_t calls = 0;              // database calls made
  std::uint64_t combined_requests = 0;  // requests that shared a call with another
  std::uint64_t solo_retries = 0;       // requests retried alone after a permanent failure
};

struct CombinerLimits {
  std::size_t max_weight = 1;    // total weight (items, or requests) of one call
  int max_concurrent_calls = 1;  // calls in flight at once
  std::size_t max_bytes = 0;     // total request bytes of one call (0: no byte bound)
};

// The admission lane whose slot each call holds; no arbiter: no admission.
struct CombinerAdmission {
  flow::Arbiter* arbiter = nullptr;
  flow::Lane lane = flow::Lane::Push;
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
    // A request's bytes in the call, counted against `max_bytes` (null: not counted).
    std::function<std::size_t(const Request& request)> bytes;
  };

  using Clock = flow::Arbiter::Clock;

  Combiner(Hooks hooks, CombinerLimits limits, CombinerAdmission admission = {})
      : hooks_(std::move(hooks)), limits_(limits), admission_(admission) {
    limits_.max_weight = std::max<std::size_t>(1, limits_.max_weight);
    limits_.max_concurrent_calls = std::max(1, limits_.max_concurrent_calls);
  }

  // Returns this request's result. Throws what its call threw, or LaneRefused
  // when admission refuses it (waiting no later than `deadline`).
  Result submit(const Request& request, Clock::time_point deadline = Clock::time_point::max()) {
    Pending me{&request, Result{}, nullptr, false, false, false};
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.push_back(&me);
    const Clock::time_point line_deadline = admission_.arbiter != nullptr ? enter_lane_queue(me, deadline) : deadline;
    while (!me.done) {
      // `me` may already ride another leader's call (taken, no longer queued):
      // then it only waits for that call to finish.
      if (may_lead(me)) {
        lead(lock, me, line_deadline);
      } else if (me.taken || admission_.arbiter == nullptr) {
        changed_.wait(lock);
      } else if (!admission_.arbiter->clock().wait_until(changed_, lock, line_deadline,
                                                         [&] { return me.done || me.taken || may_lead(me); })) {
        refuse(me, flow::Refusal::Timeout, /*counted=*/false);
      }
    }
    lock.unlock();
    if (me.retry_alone) return call_alone(request, deadline);
    if (me.error) std::rethrow_exception(me.error);
    return std::move(me.result);
  }

  CombinerStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  // Requests queued behind busy calls right now (a leader waiting for its
  // lane slot is counted by the arbiter instead).
  std::size_t waiting() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_.size() - acquiring_;
  }

 private:
  struct Pending {
    const Request* request;
    Result result{};
    std::exception_ptr error;
    bool done = false;
    bool retry_alone = false;
    bool taken = false;  // rides a call (no longer queued)
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

  // Admission of a request just queued (mutex held): refused at once when it
  // cannot lead now and the lane's queue bound is reached (a bound of 0 means
  // "no waiting"). Returns how long it may wait in line.
  Clock::time_point enter_lane_queue(Pending& me, Clock::time_point deadline) {
    const flow::LaneLimits& lane = admission_.arbiter->limits()[admission_.lane];
    const std::size_t ahead = waiting_.size() - 1 - acquiring_;
    if (!may_lead(me) && ahead >= static_cast<std::size_t>(lane.max_waiters)) {
      refuse(me, flow::Refusal::QueueFull, /*counted=*/false);
    }
    return std::min(deadline, admission_.arbiter->clock().now() + lane.max_wait);
  }

  // Takes `me` out of line and throws LaneRefused (mutex held; released by the throw).
  // `counted`: the arbiter already counted the refusal.
  [[noreturn]] void refuse(Pending& me, flow::Refusal why, bool counted) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &me));
    // The next in line may lead now.
    changed_.notify_all();
    if (!counted) admission_.arbiter->note_refused(admission_.lane, why);
    throw_lane_refusal(*admission_.arbiter, admission_.lane, why);
  }

  void free_call_slot(const Request* leader) {
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), leader));
  }

  // The lane slot of the call `me` is about to lead (mutex held, class call
  // slot already taken). `me` stays first in line while it waits, so nobody
  // of its class leads meanwhile and the requests arriving now ride its call.
  flow::Permit take_lane_slot(std::unique_lock<std::mutex>& lock, Pending& me, Clock::time_point deadline) {
    ++acquiring_;
    lock.unlock();
    flow::Permit slot = admission_.arbiter->acquire(admission_.lane, deadline);
    lock.lock();
    --acquiring_;
    if (!slot) {
      free_call_slot(me.request);
      refuse(me, slot.refusal(), /*counted=*/true);
    }
    return slot;
  }

  // Called with the mutex held by a request that may lead; returns with it held.
  void lead(std::unique_lock<std::mutex>& lock, Pending& me, Clock::time_point deadline) {
    const Request* leader = me.request;
    in_flight_.push_back(leader);
    flow::Permit slot;
    if (admission_.arbiter != nullptr) slot = take_lane_slot(lock, me, deadline);
    const std::vector<Pending*> batch = take_batch(me);
    ++stats_.calls;
    if (batch.size() > 1) stats_.combined_requests += batch.size();
    // A request of another class may have been queued behind this batch.
    if (!waiting_.empty()) changed_.notify_all();
    lock.unlock();
    execute(batch);
    slot.release();
    lock.lock();
    free_call_slot(leader);
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
    leader.taken = true;
    std::size_t weight = hooks_.weight(*requests.front());
    std::size_t bytes = bytes_of(*requests.front());
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      Pending* candidate = *it;
      if (!hooks_.joins(requests, *candidate->request)) {
        ++it;  // it needs another call; those behind it may still fit this one
        continue;
      }
      const std::size_t candidate_weight = hooks_.weight(*candidate->request);
      const std::size_t candidate_bytes = bytes_of(*candidate->request);
      // Keep FIFO: stop at the first misfit.
      if (weight + candidate_weight > limits_.max_weight) break;
      if (limits_.max_bytes != 0 && bytes + candidate_bytes > limits_.max_bytes) break;
      weight += candidate_weight;
      bytes += candidate_bytes;
      candidate->taken = true;
      batch.push_back(candidate);
      requests.push_back(candidate->request);
      it = waiting_.erase(it);
    }
    return batch;
  }

  std::size_t bytes_of(const Request& request) const { return hooks_.bytes ? hooks_.bytes(request) : 0; }

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

  Result call_alone(const Request& request, Clock::time_point deadline) {
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
        self->free_call_slot(request);
        self->changed_.notify_all();
      }
    } release{this, &request};
    // The call slot first, then the lane slot, as a leader takes them.
    flow::Permit slot;
    if (admission_.arbiter != nullptr) {
      slot = admission_.arbiter->acquire(admission_.lane, deadline);
      if (!slot) throw_lane_refusal(*admission_.arbiter, admission_.lane, slot.refusal());
    }
    const Batch alone{&request};
    std::vector<Result> results = hooks_.split(hooks_.call(alone), alone);
    if (results.size() != 1) throw std::logic_error("combiner: split answered the wrong number of requests");
    return std::move(results.front());
  }

  const Hooks hooks_;
  CombinerLimits limits_;
  const CombinerAdmission admission_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending*> waiting_;
  std::vector<const Request*> in_flight_;  // the leader of each call in flight
  std::size_t acquiring_ = 0;               // leaders waiting for their lane slot (still queued)
  CombinerStats stats_;
};

}  // namespace queen::broker
