#pragma once
// The threads that run route handlers (which may block on the database).
// Starts with `min_threads` and grows to `max_threads` when every thread is
// busy; a parked long poll holds none of them. New requests are refused
// (try_post returns false) once `max_queued` tasks wait, so a flood cannot
// grow memory without bound; continuations of accepted requests (long-poll
// re-attempts, bounded by the open connections) always queue.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace queen::http {

class HandlerPool {
 public:
  using Task = std::function<void()>;

  HandlerPool(int min_threads, int max_threads, int max_queued);
  ~HandlerPool();
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  // A new request: false (nothing queued) when `max_queued` tasks wait.
  bool try_post(Task task);
  // A continuation of an accepted request: always queued.
  void post(Task task);
  // Runs what is queued, then joins every thread. Idempotent.
  void stop();

  int threads() const;
  std::size_t queued() const;

 private:
  void enqueue(Task task);  // mutex_ held
  void run();

  const int max_threads_;
  const std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> tasks_;
  std::vector<std::thread> threads_;
  int idle_ = 0;
  bool stopping_ = false;
};

}  // namespace queen::http
