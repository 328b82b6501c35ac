#pragma once
// Pop combining: concurrent pop attempts with identical parameters share one
// database call (the generic mechanism and its failure rules: combiner.h). A
// request alone calls queen.pop_messages; a combined call is
// queen.pop_many, which runs pop_messages once per request in one
// transaction, so each request gets its own lease and its own messages, as
// if it had popped alone (docs/combining.md). With an arbiter, each call
// holds one Pop-lane slot (docs/flow-control.md).
#include <exception>
#include <functional>
#include <vector>

#include "broker/combiner.h"
#include "db/procedures.h"

namespace queen::broker {

class PopCombiner {
 public:
  using PopCall = std::function<std::vector<db::PoppedMessage>(const db::PopRequest& request)>;
  using PopManyCall = std::function<std::vector<db::CombinedPopRow>(int requests, const db::PopRequest& request)>;
  using IsTransient = std::function<bool(const std::exception_ptr&)>;

  using Clock = flow::Arbiter::Clock;

  // `arbiter` null: no admission.
  PopCombiner(PopCall pop, PopManyCall pop_many, IsTransient is_transient, int max_messages,
              int max_concurrent_calls, flow::Arbiter* arbiter = nullptr);

  // This request's messages (empty when there is nothing to claim). Throws
  // what the call threw, or LaneRefused when no call took it by the lane's
  // wait bound or `deadline`.
  std::vector<db::PoppedMessage> submit(const db::PopRequest& request,
                                        Clock::time_point deadline = Clock::time_point::max()) {
    return combiner_.submit(request, deadline);
  }

  CombinerStats stats() const { return combiner_.stats(); }
  std::size_t waiting() const { return combiner_.waiting(); }

 private:
  using Rows = std::vector<db::CombinedPopRow>;
  Combiner<db::PopRequest, Rows, std::vector<db::PoppedMessage>> combiner_;
};

}  // namespace queen::broker
