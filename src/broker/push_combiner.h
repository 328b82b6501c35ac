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
// Admission (docs/flow-control.md): with an arbiter, every call holds one
// Push-lane slot, taken by its leader before it gathers the batch (requests
// arriving meanwhile ride along), so a tight Push lane still stores many
// requests per call. The queue of requests waiting for a call is the Push
// lane's wait queue: past QUEEN_FLOW_PUSH_QUEUE waiting requests, or after
// QUEEN_FLOW_PUSH_WAIT_MS without riding a call, a request is refused with
// BrokerError TooManyRequests and none of its items is stored.
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
#include "flow/arbiter.h"

namespace queen::broker {

class PushCombiner {
 public:
  // One push_messages call: a JSON array of items, their tenant and producer.
  using Call = std::function<std::vector<db::PushRow>(const std::string& items_json, const db::PushOrigin& origin)>;
  // Classifies a call failure: true when it is transient (no per-request retry).
  using IsTransient = std::function<bool(const std::exception_ptr&)>;

  // `arbiter` null: no admission (every request waits for its call however long).
  PushCombiner(Call call, IsTransient is_transient, int max_items, int max_concurrent_calls,
               flow::Arbiter* arbiter = nullptr);

  // Pushes one request's encoded items (JSON object texts). Returns the rows
  // for this request with `idx` relative to it. Throws what the call threw.
  std::vector<db::PushRow> submit(const std::vector<std::string>& encoded_items, const db::PushOrigin& origin);

  struct Stats {
    std::uint64_t calls = 0;             // push_messages calls made
    std::uint64_t combined_requests = 0;  // requests that shared a call with another
    std::uint64_t solo_retries = 0;       // requests retried alone after a permanent failure
  };
  Stats stats() const;
  // Requests queued behind busy calls right now (a leader waiting for its
  // slot is counted by the arbiter instead).
  std::size_t waiting() const;

 private:
  struct Pending {
    const std::vector<std::string>* items;
    const db::PushOrigin* origin;
    std::vector<db::PushRow> rows;
    std::exception_ptr error;
    bool done = false;
    bool retry_alone = false;
    bool taken = false;  // rides a call (no longer queued)
  };

  using Clock = flow::Arbiter::Clock;
  // The front request leads: takes a Push slot, gathers the batch, makes the call.
  void lead(std::unique_lock<std::mutex>& lock, Pending& me, Clock::time_point deadline);
  // Takes `me` out of the queue and throws the refusal (mutex_ held; released by the throw).
  [[noreturn]] void refuse(Pending& me, flow::Refusal why, bool counted);
  std::vector<Pending*> take_batch();
  void execute(const std::vector<Pending*>& batch);
  std::vector<db::PushRow> call_alone(const Pending& request);

  const Call call_;
  const IsTransient is_transient_;
  const std::size_t max_items_;
  const int max_concurrent_calls_;
  flow::Arbiter* const arbiter_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending*> waiting_;
  int in_flight_ = 0;
  int acquiring_ = 0;  // leaders waiting for their slot (still queued)
  Stats stats_;
};

}  // namespace queen::broker
