#include "wake/pop_waiters.h"

namespace queen::wake {

PopWaiters::Registration::Registration(PopWaiters& owner, std::string key) : owner_(owner), key_(std::move(key)) {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  slot_ = &owner_.slots_[key_];
  ++slot_->registrations;
  ++owner_.registrations_;
  armed_generation_ = slot_->generation;
}

PopWaiters::Registration::~Registration() {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  --owner_.registrations_;
  if (--slot_->registrations == 0) owner_.slots_.erase(key_);
}

void PopWaiters::Registration::arm() {
  std::lock_guard<std::mutex> lock(owner_.mutex_);
  armed_generation_ = slot_->generation;
}

bool PopWaiters::Registration::wait_until(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(owner_.mutex_);
  const bool woken =
      slot_->changed.wait_until(lock, deadline, [&] { return slot_->generation != armed_generation_; });
  armed_generation_ = slot_->generation;
  return woken;
}

void PopWaiters::notify(std::string_view key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(std::string(key));
  // No slot means nobody is registered: a waiter that registers later checks
  // the database after this push committed, so nothing is lost.
  if (it == slots_.end()) return;
  ++it->second.generation;
  it->second.changed.notify_all();
}

void PopWaiters::notify_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, slot] : slots_) {
    ++slot.generation;
    slot.changed.notify_all();
  }
}

std::size_t PopWaiters::parked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return registrations_;
}

}  // namespace queen::wake
