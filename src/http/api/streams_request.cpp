#include "http/api/streams_request.h"

#include <nlohmann/json.hpp>

#include "http/api/push_request.h"
#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"

namespace queen::http {
namespace {

using nlohmann::json;

constexpr std::size_t kIdempotencyKeyMaxChars = 255;
constexpr std::size_t kConfigHashMaxChars = 1024;  // queen.stream_queries.config_hash

json parse_object_body(const std::string& body, const config::LimitsConfig& limits) {
  json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "request body must be a JSON object");
  return doc;
}

// A required non-empty string: 400 "<name> is required" otherwise.
std::string required_string(const json& doc, const char* name, const config::LimitsConfig& limits) {
  const json* value = present_field(doc, name);
  if (value == nullptr || !value->is_string() || value->get_ref<const std::string&>().empty()) {
    throw HttpError(400, std::string(name) + " is required");
  }
  check_name(value->get_ref<const std::string&>(), name, limits);
  return value->get<std::string>();
}

bool optional_bool(const json& doc, const char* name, bool fallback) {
  const json* value = present_field(doc, name);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) throw HttpError(400, std::string(name) + " must be a boolean");
  return value->get<bool>();
}

const json* optional_array(const json& doc, const char* name) {
  const json* value = present_field(doc, name);
  if (value != nullptr && !value->is_array()) throw HttpError(400, std::string(name) + " must be an array");
  return value;
}

// A body about one shard of a query's state (a state read, a cycle): its
// query_id and partition_id, both required.
template <typename ShardRequest>
ShardRequest shard_request(const json& doc, const config::LimitsConfig& limits) {
  ShardRequest r;
  r.query_id = required_string(doc, "query_id", limits);
  r.partition_id = required_string(doc, "partition_id", limits);
  return r;
}

}  // namespace

broker::StreamQueryRegistration parse_stream_query_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_object_body(body, limits);
  broker::StreamQueryRegistration r;
  r.name = required_string(doc, "name", limits);
  r.source_queue = required_string(doc, "source_queue", limits);
  const json* hash = present_field(doc, "config_hash");
  if (hash == nullptr || !hash->is_string() || hash->get_ref<const std::string&>().empty()) {
    throw HttpError(400, "config_hash is required");
  }
  r.config_hash = hash->get<std::string>();  // opaque
  if (utf8_length(r.config_hash) > kConfigHashMaxChars) {
    throw HttpError(400, "config_hash must be at most 1024 characters");
  }
  r.sink_queue = name_field(doc, "sink_queue", limits);
  r.reset = optional_bool(doc, "reset", false);
  return r;
}

broker::StreamStateRead parse_stream_state_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_object_body(body, limits);
  auto r = shard_request<broker::StreamStateRead>(doc, limits);
  const json* keys = present_field(doc, "keys");
  if (keys != nullptr && keys->is_array()) {
    r.keys.reserve(keys->size());
    for (const auto& key : *keys) {
      if (!key.is_string()) throw HttpError(400, "keys must be strings");
      r.keys.push_back(key.get<std::string>());
    }
  }
  r.key_prefix = string_field(doc, "key_prefix");
  const json* ripe = present_field(doc, "ripe_at_or_before");
  if (ripe != nullptr && ripe->is_number()) r.ripe_at_or_before_json = dump_json(*ripe);
  return r;
}

broker::StreamCycleCommand parse_stream_cycle_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_object_body(body, limits);
  auto c = shard_request<broker::StreamCycleCommand>(doc, limits);
  c.consumer_group = name_field(doc, "consumer_group", limits);
  c.release_lease = optional_bool(doc, "release_lease", true);
  if (const json* ops = optional_array(doc, "state_ops")) c.state_ops_json = dump_json(*ops);
  if (const json* items = optional_array(doc, "push_items")) c.push_items = parse_push_items(*items, limits);
  if (const json* ack = present_field(doc, "ack")) {
    if (!ack->is_object()) throw HttpError(400, "ack must be an object or null");
    c.ack_json = dump_json(*ack);
  }
  if (const json* key = present_field(doc, "idempotency_key")) {
    if (!key->is_string() || key->get_ref<const std::string&>().empty() ||
        utf8_length(key->get_ref<const std::string&>()) > kIdempotencyKeyMaxChars) {
      throw HttpError(400, "idempotency_key must be a string of 1 to 255 characters");
    }
    check_name(key->get_ref<const std::string&>(), "idempotency_key", limits);
    c.idempotency_key = key->get<std::string>();
  }
  return c;
}

}  // namespace queen::http
