#include "http/transport/body_budget.h"

#include <utility>

namespace queen::http {

bool BodyBudget::take(std::int64_t bytes) {
  std::int64_t held = in_flight_.load(std::memory_order_relaxed);
  do {
    if (held + bytes > capacity_) return false;
  } while (!in_flight_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  if (metrics_) metrics_->add_request_body_bytes_in_flight(bytes);
  return true;
}

void BodyBudget::give_back(std::int64_t bytes) {
  in_flight_.fetch_sub(bytes, std::memory_order_relaxed);
  if (metrics_) metrics_->add_request_body_bytes_in_flight(-bytes);
}

BodyBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

BodyBudget::Reservation& BodyBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

bool BodyBudget::Reservation::grow_to(std::int64_t total) {
  if (!budget_ || total <= bytes_) return budget_ != nullptr;
  if (!budget_->take(total - bytes_)) return false;
  bytes_ = total;
  return true;
}

void BodyBudget::Reservation::release() {
  if (budget_ && bytes_ > 0) budget_->give_back(bytes_);
  bytes_ = 0;
}

}  // namespace queen::http
