#include "wake/pop_waiters.h"

#include <vector>

#include "util/assert.h"

namespace queen::wake {

PopWaiters::~PopWaiters() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  timer_changed_.notify_all();
  if (timer_thread_.joinable()) timer_thread_.join();
  // Polls still parked are dropped unanswered (their server is gone too);
  // their callbacks are destroyed outside the lock they would take.
  std::unordered_map<std::uint64_t, Parked> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, entry] : parked_) entry.registration->parked_id_ = 0;
    dropped.swap(parked_);
    timers_.clear();
  }
}

PopWaiters::Registration::Registration(PopWaiters& owner, std::string key) : owner_(owner), key_(std::move(key)) {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  slot_ = &owner_.slots_[key_];
  ++slot_->registrations;
  ++owner_.registrations_;
  armed_generation_ = slot_->generation;
}

PopWaiters::Registration::~Registration() {
  Resume dropped;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  // Parked here only when its owner dropped the callback's owner some other
  // way (the callback usually keeps the registration alive).
  if (parked_id_ != 0) dropped = owner_.take_parked(parked_id_);
  --owner_.registrations_;
  if (--slot_->registrations == 0) owner_.slots_.erase(key_);
}

void PopWaiters::Registration::arm() {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  armed_generation_ = slot_->generation;
}

bool PopWaiters::Registration::wait_until(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(owner_.mutex_);
  const bool woken = owner_.clock_.wait_until(slot_->changed, lock, deadline,
                                              [&] { return slot_->generation != armed_generation_; });
  armed_generation_ = slot_->generation;
  return woken;
}

void PopWaiters::Registration::park(Clock::time_point wake_at, Resume resume) {
  {
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    QUEEN_ASSERT(parked_id_ == 0, "one park at a time per registration");
    if (slot_->generation == armed_generation_) {
      const std::uint64_t id = owner_.next_parked_id_++;
      parked_id_ = id;
      owner_.parked_.emplace(id, Parked{slot_, this, wake_at, std::move(resume)});
      slot_->parked.insert(id);
      const bool earliest = owner_.timers_.empty() || wake_at < owner_.timers_.begin()->first;
      owner_.timers_.emplace(wake_at, id);
      if (!owner_.timer_thread_.joinable()) {
        owner_.timer_thread_ = std::thread([this] { owner_.timer_loop(); });
      } else if (earliest) {
        owner_.timer_changed_.notify_one();
      }
      return;
    }
    armed_generation_ = slot_->generation;
  }
  resume(true);  // a notify raced with the check: go again at once
}

PopWaiters::Resume PopWaiters::take_parked(std::uint64_t id) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return nullptr;
  Parked entry = std::move(it->second);
  parked_.erase(it);
  entry.slot->parked.erase(id);
  timers_.erase({entry.wake_at, id});
  entry.registration->parked_id_ = 0;
  entry.registration->armed_generation_ = entry.slot->generation;
  return std::move(entry.resume);
}

void PopWaiters::wake_slot(Slot& slot, std::vector<Resume>& woken) {
  ++slot.generation;
  slot.changed.notify_all();
  const std::vector<std::uint64_t> ids(slot.parked.begin(), slot.parked.end());
  for (const std::uint64_t id : ids) woken.push_back(take_parked(id));
}

void PopWaiters::notify(std::string_view key) {
  std::vector<Resume> woken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = slots_.find(std::string(key));
    // No slot means nobody is registered: a waiter that registers later checks
    // the database after this push committed, so nothing is lost.
    if (it == slots_.end()) return;
    wake_slot(it->second, woken);
  }
  for (auto& resume : woken) resume(true);
}

void PopWaiters::notify_all() {
  std::vector<Resume> woken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [key, slot] : slots_) wake_slot(slot, woken);
  }
  for (auto& resume : woken) resume(true);
}

std::size_t PopWaiters::parked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return registrations_;
}

void PopWaiters::timer_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      clock_.wait_until(timer_changed_, lock, Clock::time_point::max(), [&] { return stopping_ || !timers_.empty(); });
      continue;
    }
    const Clock::time_point next = timers_.begin()->first;
    if (clock_.now() < next) {
      // Until `next`, or an earlier timer (or none) heads the set.
      clock_.wait_until(timer_changed_, lock, next,
                        [&] { return stopping_ || timers_.empty() || timers_.begin()->first < next; });
      continue;
    }
    std::vector<Resume> due;
    const auto now = clock_.now();
    while (!timers_.empty() && timers_.begin()->first <= now) due.push_back(take_parked(timers_.begin()->second));
    lock.unlock();
    for (auto& resume : due) resume(false);
    due.clear();  // a callback may own the last reference to a registration
    lock.lock();
  }
}

}  // namespace queen::wake
