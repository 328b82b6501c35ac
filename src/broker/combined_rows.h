#pragma once
// Rows of a combined call (queen.pop_many, queen.ack_many) carry the index of
// the request they answer; these turn them into one row list per request.
// An index outside the call's requests is a DbError (db/item_index.h).
#include <cstddef>
#include <vector>

#include "db/item_index.h"
#include "db/procedures.h"

namespace queen::broker {

// The rows of a lone procedure call, as the single request of a combined one.
template <class Row>
std::vector<db::CombinedRow<Row>> as_request_zero(std::vector<Row> rows) {
  std::vector<db::CombinedRow<Row>> combined;
  combined.reserve(rows.size());
  for (auto& row : rows) combined.push_back({0, std::move(row)});
  return combined;
}

// One list per request, each in the order the call returned its rows.
template <class Row>
std::vector<std::vector<Row>> rows_by_request(std::vector<db::CombinedRow<Row>> rows, std::size_t requests,
                                              const char* what) {
  std::vector<std::vector<Row>> split(requests);
  for (auto& row : rows) split[db::item_index_of(row.request_idx, requests, what)].push_back(std::move(row.row));
  return split;
}

}  // namespace queen::broker
