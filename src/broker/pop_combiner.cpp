#include "broker/pop_combiner.h"

#include <algorithm>

#include "broker/combined_rows.h"

namespace queen::broker {

PopCombiner::PopCombiner(PopCall pop, PopManyCall pop_many, IsTransient is_transient, int max_requests,
                         int max_concurrent_calls, flow::Arbiter* arbiter)
    : combiner_(
          {
              // queen.pop_many repeats one parameter set
              [](const auto& batch, const db::PopRequest& candidate) { return candidate == *batch.front(); },
              [](const db::PopRequest&) { return std::size_t{1}; },
              [pop = std::move(pop), pop_many = std::move(pop_many)](const auto& batch) {
                if (batch.size() == 1) return as_request_zero(pop(*batch.front()));
                return pop_many(static_cast<int>(batch.size()), *batch.front());
              },
              [](Rows rows, const auto& batch) { return rows_by_request(std::move(rows), batch.size(), "pop_many"); },
              std::move(is_transient),
          },
          {static_cast<std::size_t>(std::max(1, max_requests)), max_concurrent_calls}, {arbiter, flow::Lane::Pop}) {}

}  // namespace queen::broker
