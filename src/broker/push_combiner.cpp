#include "broker/push_combiner.h"

#include <algorithm>

#include "broker/admission.h"
#include "broker/encoding.h"
#include "db/item_index.h"

namespace queen::broker {

PushCombiner::PushCombiner(Call call, IsTransient is_transient, int max_items, int max_concurrent_calls,
                           flow::Arbiter* arbiter)
    : call_(std::move(call)),
      is_transient_(std::move(is_transient)),
      max_items_(static_cast<std::size_t>(std::max(1, max_items))),
      max_concurrent_calls_(std::max(1, max_concurrent_calls)),
      arbiter_(arbiter) {}

std::vector<db::PushRow> PushCombiner::submit(const std::vector<std::string>& encoded_items,
                                              const db::PushOrigin& origin) {
  Pending me{&encoded_items, &origin, {}, nullptr, false, false, false};
  std::unique_lock<std::mutex> lock(mutex_);
  Clock::time_point deadline = Clock::time_point::max();
  if (arbiter_ != nullptr) {
    const flow::LaneLimits& lane = arbiter_->limits()[flow::Lane::Push];
    // A request that leads at once does not queue (a queue bound of 0 means "no waiting").
    const bool leads_now = waiting_.empty() && in_flight_ < max_concurrent_calls_;
    if (!leads_now &&
        waiting_.size() - static_cast<std::size_t>(acquiring_) >= static_cast<std::size_t>(lane.max_waiters)) {
      arbiter_->note_refused(flow::Lane::Push, flow::Refusal::QueueFull);
      throw_lane_refusal(*arbiter_, flow::Lane::Push, flow::Refusal::QueueFull);
    }
    deadline = Clock::now() + lane.max_wait;
  }
  waiting_.push_back(&me);
  while (!me.done) {
    // `me` may already ride another leader's call (taken, no longer queued):
    // then it only waits for that call to finish.
    if (!me.taken && in_flight_ < max_concurrent_calls_ && waiting_.front() == &me) {
      lead(lock, me, deadline);
    } else if (me.taken || arbiter_ == nullptr) {
      changed_.wait(lock);
    } else if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !me.taken &&
               !(in_flight_ < max_concurrent_calls_ && waiting_.front() == &me)) {
      refuse(me, flow::Refusal::Timeout, /*counted=*/false);
    }
  }
  lock.unlock();
  if (me.retry_alone) return call_alone(me);
  if (me.error) std::rethrow_exception(me.error);
  return std::move(me.rows);
}

void PushCombiner::lead(std::unique_lock<std::mutex>& lock, Pending& me, Clock::time_point deadline) {
  ++in_flight_;
  flow::Permit slot;
  if (arbiter_ != nullptr) {
    // Still first in line while it waits, so nobody else leads meanwhile and
    // the requests arriving now ride this call.
    ++acquiring_;
    lock.unlock();
    slot = arbiter_->acquire(flow::Lane::Push, deadline);
    lock.lock();
    --acquiring_;
    if (!slot) {
      --in_flight_;
      refuse(me, slot.refusal(), /*counted=*/true);
    }
  }
  const std::vector<Pending*> batch = take_batch();
  ++stats_.calls;
  if (batch.size() > 1) stats_.combined_requests += batch.size();
  lock.unlock();
  execute(batch);
  slot.release();
  lock.lock();
  --in_flight_;
  for (Pending* p : batch) p->done = true;
  // Followers learn they are done; the next in line may lead.
  changed_.notify_all();
}

void PushCombiner::refuse(Pending& me, flow::Refusal why, bool counted) {
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &me));
  // The next in line may lead now.
  changed_.notify_all();
  if (!counted) arbiter_->note_refused(flow::Lane::Push, why);
  throw_lane_refusal(*arbiter_, flow::Lane::Push, why);
}

// Called with the mutex held; the caller is the front of the line.
std::vector<PushCombiner::Pending*> PushCombiner::take_batch() {
  std::vector<Pending*> batch{waiting_.front()};
  waiting_.pop_front();
  batch.front()->taken = true;
  std::size_t items = batch.front()->items->size();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Pending* candidate = *it;
    if (*candidate->origin != *batch.front()->origin) {
      ++it;  // another tenant or producer needs its own call
      continue;
    }
    if (items + candidate->items->size() > max_items_) break;  // keep FIFO: stop at the first misfit
    items += candidate->items->size();
    candidate->taken = true;
    batch.push_back(candidate);
    it = waiting_.erase(it);
  }
  return batch;
}

void PushCombiner::execute(const std::vector<Pending*>& batch) {
  std::vector<const std::string*> elements;
  std::vector<std::size_t> offsets;  // first combined index of each participant
  for (Pending* p : batch) {
    offsets.push_back(elements.size());
    for (const auto& item : *p->items) elements.push_back(&item);
  }
  std::vector<db::PushRow> rows;
  try {
    rows = call_(join_json_array(elements), *batch.front()->origin);
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    const bool retry_each = batch.size() > 1 && !is_transient_(error);
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
    for (auto& row : rows) {
      const std::size_t idx = db::item_index_of(row.idx, elements.size(), "push_messages");
      const std::size_t owner =
          static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), idx) - offsets.begin()) - 1;
      row.idx = static_cast<int>(idx - offsets[owner]);
      batch[owner]->rows.push_back(std::move(row));
    }
  } catch (const db::DbError&) {
    // Every participant gets the error: none may be left waiting for rows.
    for (Pending* p : batch) {
      p->rows.clear();
      p->error = std::current_exception();
    }
  }
}

std::vector<db::PushRow> PushCombiner::call_alone(const Pending& request) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return in_flight_ < max_concurrent_calls_; });
    ++in_flight_;
    ++stats_.calls;
    ++stats_.solo_retries;
  }
  struct SlotRelease {
    PushCombiner* self;
    ~SlotRelease() {
      std::lock_guard<std::mutex> lock(self->mutex_);
      --self->in_flight_;
      self->changed_.notify_all();
    }
  } release{this};
  // The call slot first, then the Push slot, as a leader takes them: never
  // the other way round, or a leader and a retry could each hold what the other waits for.
  flow::Permit slot;
  if (arbiter_ != nullptr) slot = admit_or_throw(*arbiter_, flow::Lane::Push);
  std::vector<const std::string*> elements;
  for (const auto& item : *request.items) elements.push_back(&item);
  return call_(join_json_array(elements), *request.origin);
}

std::size_t PushCombiner::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size() - static_cast<std::size_t>(acquiring_);
}

PushCombiner::Stats PushCombiner::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace queen::broker
