#include "broker/push_combiner.h"

#include <algorithm>

#include "broker/encoding.h"
#include "db/item_index.h"

namespace queen::broker {
namespace {

template <class Batch>
std::vector<const std::string*> all_items(const Batch& batch) {
  std::vector<const std::string*> elements;
  for (const auto* request : batch) {
    for (const auto& item : *request->items) elements.push_back(&item);
  }
  return elements;
}

}  // namespace

PushCombiner::PushCombiner(Call call, IsTransient is_transient, int max_items, int max_concurrent_calls,
                           flow::Arbiter* arbiter, std::size_t max_bytes)
    : combiner_(
          {
              // another tenant or producer needs its own call
              [](const auto& batch, const Request& candidate) { return *candidate.origin == *batch.front()->origin; },
              [](const Request& request) { return request.items->size(); },
              [call = std::move(call)](const auto& batch) {
                std::vector<DedupItem> keys;
                for (const auto* request : batch) keys.insert(keys.end(), request->keys->begin(), request->keys->end());
                return call(join_json_array(all_items(batch)), *batch.front()->origin, keys);
              },
              [](Rows rows, const auto& batch) {
                std::vector<std::size_t> offsets;  // first combined index of each request
                std::size_t total = 0;
                for (const auto* request : batch) {
                  offsets.push_back(total);
                  total += request->items->size();
                }
                std::vector<Rows> split(batch.size());
                for (auto& row : rows) {
                  const std::size_t idx = db::item_index_of(row.idx, total, "push_messages");
                  const auto owner = static_cast<std::size_t>(
                      std::upper_bound(offsets.begin(), offsets.end(), idx) - offsets.begin() - 1);
                  row.idx = static_cast<int>(idx - offsets[owner]);
                  split[owner].push_back(std::move(row));
                }
                return split;
              },
              std::move(is_transient),
              [](const Request& request) { return request.bytes; },
          },
          {static_cast<std::size_t>(std::max(1, max_items)), max_concurrent_calls, max_bytes},
          {arbiter, flow::Lane::Push}) {}

std::vector<db::PushRow> PushCombiner::submit(const std::vector<std::string>& encoded_items,
                                              const std::vector<DedupItem>& keys, const db::PushOrigin& origin) {
  std::size_t bytes = 0;
  for (const auto& item : encoded_items) bytes += item.size();
  return combiner_.submit(Request{&encoded_items, &keys, &origin, bytes});
}

}  // namespace queen::broker
