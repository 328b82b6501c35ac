#pragma once
// Push combining: concurrent push requests of one origin (tenant and
// producer subject) share one push_messages call, up to `max_items` items
// and `max_bytes` bytes of encoded items (a request larger than that is a call
// of its own; the generic mechanism and its failure rules: combiner.h). With an
// arbiter, each call holds one Push-lane slot and a push refused by the lane
// throws LaneRefused before any of its items is stored (docs/flow-control.md).
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "broker/combiner.h"
#include "broker/dedup_cache.h"
#include "db/procedures.h"

namespace queen::broker {

class PushCombiner {
 public:
  // One push_messages call: a JSON array of items, their tenant and producer,
  // and each item's dedup identity.
  using Call = std::function<std::vector<db::PushRow>(const std::string& items_json, const db::PushOrigin& origin,
                                                      const std::vector<DedupItem>& keys)>;
  // Classifies a call failure: true when it is transient (no per-request retry).
  using IsTransient = std::function<bool(const std::exception_ptr&)>;

  // `arbiter` null: no admission (every request waits for its call however long).
  // `max_bytes` 0: no byte bound.
  PushCombiner(Call call, IsTransient is_transient, int max_items, int max_concurrent_calls,
               flow::Arbiter* arbiter = nullptr, std::size_t max_bytes = 0);

  // Pushes one request's encoded items (JSON object texts), keys[i] the dedup
  // identity of item i. Returns the rows for this request with `idx` relative
  // to it. Throws what the call threw.
  std::vector<db::PushRow> submit(const std::vector<std::string>& encoded_items, const std::vector<DedupItem>& keys,
                                  const db::PushOrigin& origin);

  using Stats = CombinerStats;
  Stats stats() const { return combiner_.stats(); }
  // Requests queued behind busy calls right now (a leader waiting for its
  // Push slot is counted by the arbiter instead).
  std::size_t waiting() const { return combiner_.waiting(); }

 private:
  struct Request {
    const std::vector<std::string>* items;
    const std::vector<DedupItem>* keys;
    const db::PushOrigin* origin;
    std::size_t bytes;  // of the encoded items
  };
  using Rows = std::vector<db::PushRow>;
  Combiner<Request, Rows, Rows> combiner_;
};

}  // namespace queen::broker
