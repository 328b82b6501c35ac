#include "broker/ack_combiner.h"

#include <algorithm>
#include <cctype>

#include "broker/combined_rows.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

// A partition id as the database compares it: hex digits, lower case (a UUID
// may arrive in capitals, braced or without hyphens).
std::string partition_key(const std::string& partition_id) {
  std::string key;
  key.reserve(32);
  for (const char c : partition_id) {
    if (std::isxdigit(static_cast<unsigned char>(c))) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

bool share_a_partition(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

template <class Batch>
std::string encode_ack_requests(const Batch& batch) {
  std::string out = "[";
  for (const auto* request : batch) {
    if (out.size() > 1) out += ',';
    out += "{\"group\":";
    util::append_json_string_or_null(out, *request->consumer_group);
    out += ",\"acks\":";
    out += *request->acks_json;
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace

AckCombiner::AckCombiner(AckCall ack, AckManyCall ack_many, IsTransient is_transient, int max_items,
                         int max_concurrent_calls, flow::Arbiter* arbiter, std::size_t max_bytes)
    : combiner_(
          {
              // One tenant per call; two requests on one partition would see each other's
              // effects in a different way than one after the other: separate calls.
              [](const auto& batch, const Request& candidate) {
                if (*candidate.tenant != *batch.front()->tenant) return false;
                return std::none_of(batch.begin(), batch.end(), [&](const Request* member) {
                  return share_a_partition(member->partition_keys, candidate.partition_keys);
                });
              },
              [](const Request& request) { return request.items; },
              [ack = std::move(ack), ack_many = std::move(ack_many)](const auto& batch) {
                const Request& first = *batch.front();
                if (batch.size() == 1) return as_request_zero(ack(*first.acks_json, *first.consumer_group, *first.tenant));
                return ack_many(encode_ack_requests(batch), *first.tenant);
              },
              [](Rows rows, const auto& batch) { return rows_by_request(std::move(rows), batch.size(), "ack_many"); },
              std::move(is_transient),
              [](const Request& request) { return request.acks_json->size(); },
          },
          {static_cast<std::size_t>(std::max(1, max_items)), max_concurrent_calls, max_bytes},
          {arbiter, flow::Lane::Ack}) {}

std::vector<db::AckRow> AckCombiner::submit(const std::string& acks_json, std::size_t items,
                                            const std::vector<std::string>& partition_ids,
                                            const std::optional<std::string>& consumer_group,
                                            const Tenant& tenant) {
  Request request{&acks_json, items, {}, &consumer_group, &tenant};
  request.partition_keys.reserve(partition_ids.size());
  for (const auto& id : partition_ids) request.partition_keys.push_back(partition_key(id));
  std::sort(request.partition_keys.begin(), request.partition_keys.end());
  request.partition_keys.erase(std::unique(request.partition_keys.begin(), request.partition_keys.end()),
                               request.partition_keys.end());
  return combiner_.submit(request);
}

}  // namespace queen::broker
