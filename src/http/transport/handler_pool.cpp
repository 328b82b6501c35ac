#include "http/transport/handler_pool.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "util/assert.h"

namespace queen::http {

HandlerPool::HandlerPool(int min_threads, int max_threads, int max_queued)
    : max_threads_(std::max(1, max_threads)), max_queued_(static_cast<std::size_t>(std::max(1, max_queued))) {
  QUEEN_ASSERT(min_threads <= max_threads, "the pool never shrinks below its minimum");
  std::lock_guard<std::mutex> lock(mutex_);
  for (int i = 0; i < std::clamp(min_threads, 1, max_threads_); ++i) threads_.emplace_back([this] { run(); });
}

HandlerPool::~HandlerPool() { stop(); }

bool HandlerPool::try_post(Task task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || tasks_.size() >= max_queued_) return false;
    enqueue(std::move(task));
  }
  ready_.notify_one();
  return true;
}

void HandlerPool::post(Task task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    enqueue(std::move(task));
  }
  ready_.notify_one();
}

void HandlerPool::enqueue(Task task) {
  tasks_.push_back(std::move(task));
  // Grow only when nobody is free to take it: blocking handlers (database
  // calls) must not starve the queue behind them.
  if (idle_ < static_cast<int>(tasks_.size()) && static_cast<int>(threads_.size()) < max_threads_) {
    threads_.emplace_back([this] { run(); });
  }
}

void HandlerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (auto& thread : threads) thread.join();
}

int HandlerPool::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(threads_.size());
}

std::size_t HandlerPool::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tasks_.size();
}

void HandlerPool::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ++idle_;
    ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    --idle_;
    if (tasks_.empty()) return;  // stopping, and everything queued has run
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::error("http: a handler task escaped with an exception: {}", e.what());
    } catch (...) {
      spdlog::error("http: a handler task escaped with a non-standard exception");
    }
    task = nullptr;  // release what it captured outside the lock
    lock.lock();
  }
}

}  // namespace queen::http
