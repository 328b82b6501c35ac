#include "broker/encoding.h"

#include <string>

#include "util/json_text.h"

namespace queen::broker {

using util::append_json_key;
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
  out += ',';
  append_json_key(out, "partition");
  append_json_string(out, item.partition);
  out += ',';
  append_json_key(out, "payload");
  out += item.payload_json;
  out += ',';
  append_json_key(out, "transactionId");
  append_json_string(out, item.transaction_id);
  if (item.trace_id) {
    out += ',';
    append_json_key(out, "traceId");
    append_json_string(out, *item.trace_id);
  }
  if (item.namespace_name) {
    out += ',';
    append_json_key(out, "namespace");
    append_json_string(out, *item.namespace_name);
  }
  if (item.task) {
    out += ',';
    append_json_key(out, "task");
    append_json_string(out, *item.task);
  }
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
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    append_push_item(out, items[i]);
  }
  out += ']';
  return out;
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
    out += ',';
    append_json_key(out, "partitionId");
    append_json_string(out, a.partition_id);
    if (a.lease_id) {
      out += ',';
      append_json_key(out, "leaseId");
      append_json_string(out, *a.lease_id);
    }
    if (a.status) {
      out += ',';
      append_json_key(out, "status");
      append_json_string(out, *a.status);
    }
    if (a.error) {
      out += ',';
      append_json_key(out, "error");
      append_json_string(out, *a.error);
    }
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace queen::broker
