#include "broker/pop_combiner.h"

#include <algorithm>

#include "broker/combined_rows.h"

namespace queen::broker {

PopCombiner::PopCombiner(PopCall pop, PopManyCall pop_many, IsTransient is_transient, int max_messages,
                         int max_concurrent_calls, flow::Arbiter* arbiter)
    : combiner_(
          {
              // queen.pop_many repeats one parameter set
              [](const auto& batch, const db::PopRequest& candidate) { return candidate == *batch.front(); },
              // A combined call runs its pops one after another in one transaction: worth it
              // while commits dominate (small batches), not once reading messages does.
              [](const db::PopRequest& request) { return static_cast<std::size_t>(std::max(1, request.batch)); },
              [pop = std::move(pop), pop_many = std::move(pop_many)](const auto& batch) {
                if (batch.size() == 1) return as_request_zero(pop(*batch.front()));
                return pop_many(static_cast<int>(batch.size()), *batch.front());
              },
              [](Rows rows, const auto& batch) { return rows_by_request(std::move(rows), batch.size(), "pop_many"); },
              std::move(is_transient),
              // No byte bound: a pop carries parameters only (its answer is bounded by the batch sizes).
              nullptr,
          },
          {static_cast<std::size_t>(std::max(1, max_messages)), max_concurrent_calls}, {arbiter, flow::Lane::Pop}) {}

}  // namespace queen::broker
