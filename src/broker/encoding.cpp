#include "broker/encoding.h"

#include <string>

#include "util/json_text.h"

namespace queen::broker {

using util::append_json_key;
using util::append_json_member;
using util::append_json_member_if_set;
using util::append_json_string;

std::string encode_push_item(const PushItem& item) {
  std::string out;
  out.reserve(item.payload_json.size() + item.queue.size() + item.partition.size() +
              item.transaction_id.size() + 128);
  append_push_item(out, item);
  return out;
}

void append_push_item(std::string& out, const PushItem& item) {
  out += '{';
  append_json_key(out, "queue");
  append_json_string(out, item.queue);
  append_json_member(out, "partition", item.partition);
  out += ',';
  append_json_key(out, "payload");
  out += item.payload_json;
  append_json_member(out, "transactionId", item.transaction_id);
  append_json_member_if_set(out, "traceId", item.trace_id);
  append_json_member_if_set(out, "namespace", item.namespace_name);
  append_json_member_if_set(out, "task", item.task);
  if (item.deliver_at_ms) {
    // Normalized to epoch ms so the database and the broker read one instant.
    out += ',';
    append_json_key(out, "deliverAt");
    out += std::to_string(*item.deliver_at_ms);
  }
  if (item.encrypted) {
    out += ',';
    append_json_key(out, "encrypted");
    out += "true";
  }
  if (item.key_held) {
    out += ',';
    append_json_key(out, "keyHeld");
    out += "true";
  }
  out += '}';
}

std::string encode_push_items(const std::vector<PushItem>& items) {
  constexpr std::size_t kItemOverheadBytes = 160;  // keys, quotes, ids: a reserve hint, not a bound
  std::size_t size = 2;
  for (const auto& item : items) size += item.payload_json.size() + kItemOverheadBytes;
  std::string out;
  out.reserve(size);  // one allocation, however large the payloads (a spool replay of 40 MB items)
  append_push_items(out, items);
  return out;
}

void append_push_items(std::string& out, const std::vector<PushItem>& items) {
  out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    append_push_item(out, items[i]);
  }
  out += ']';
}

std::string join_json_array(const std::vector<const std::string*>& elements) {
  std::size_t total = 2;
  for (const auto* e : elements) total += e->size() + 1;
  std::string out;
  out.reserve(total);
  out += '[';
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ',';
    out += *elements[i];
  }
  out += ']';
  return out;
}

std::string encode_ack_items(const std::vector<AckItem>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const AckItem& a = items[i];
    if (i) out += ',';
    out += '{';
    append_json_key(out, "transactionId");
    append_json_string(out, a.transaction_id);
    append_json_member(out, "partitionId", a.partition_id);
    append_json_member_if_set(out, "leaseId", a.lease_id);
    append_json_member_if_set(out, "status", a.status);
    append_json_member_if_set(out, "error", a.error);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace queen::broker
