#pragma once
// Group commit for push: concurrent push requests share one push_messages
// call.
//
// Leader/follower: a request that finds a free call slot (fewer than
// `max_concurrent_calls` in flight) and is first in line becomes the leader,
// takes itself and every request queued behind it (same origin: tenant and
// producer subject, up to
// `max_items` items in total), makes one call and splits the rows back by
// index. Requests that arrive while every slot is busy queue up and ride the
// next call. When idle, a request leads alone at once: no added latency.
//
// Failure handling: a transient failure of a combined call is every
// participant's failure (the database is down for all of them). A permanent
// failure of a combined call is retried per request, so one bad request
// cannot fail the others; a request that fails alone gets its own error.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "db/procedures.h"

namespace queen::broker {

class PushCombiner {
 public:
  // One push_messages call: a JSON array of items, their tenant and producer.
  using Call = std::function<std::vector<db::PushRow>(const std::string& items_json, const db::PushOrigin& origin)>;
  // Classifies a call failure: true when it is transient (no per-request retry).
  using IsTransient = std::function<bool(const std::exception_ptr&)>;

  PushCombiner(Call call, IsTransient is_transient, int max_items, int max_concurrent_calls);

  // Pushes one request's encoded items (JSON object texts). Returns the rows
  // for this request with `idx` relative to it. Throws what the call threw.
  std::vector<db::PushRow> submit(const std::vector<std::string>& encoded_items, const db::PushOrigin& origin);

  struct Stats {
    std::uint64_t calls = 0;             // push_messages calls made
    std::uint64_t combined_requests = 0;  // requests that shared a call with another
    std::uint64_t solo_retries = 0;       // requests retried alone after a permanent failure
  };
  Stats stats() const;
  // Requests queued behind busy calls right now.
  std::size_t waiting() const;

 private:
  struct Pending {
    const std::vector<std::string>* items;
    const db::PushOrigin* origin;
    std::vector<db::PushRow> rows;
    std::exception_ptr error;
    bool done = false;
    bool retry_alone = false;
  };

  std::vector<Pending*> take_batch();
  void execute(const std::vector<Pending*>& batch);
  std::vector<db::PushRow> call_alone(const Pending& request);

  const Call call_;
  const IsTransient is_transient_;
  const std::size_t max_items_;
  const int max_concurrent_calls_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending*> waiting_;
  int in_flight_ = 0;
  Stats stats_;
};

}  // namespace queen::broker
