#include "http/api/kv_request.h"

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {

using nlohmann::json;

void validate_kv_key(const std::string& key, const config::LimitsConfig& limits) {
  if (key.empty()) throw HttpError(400, "key must be a non-empty string");
  check_name(key, "key", limits);
}

KvPutRequest parse_kv_put_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "value is required");
  auto value = doc.find("value");
  if (value == doc.end()) throw HttpError(400, "value is required");
  KvPutRequest request;
  request.value_json = dump_json(*value);
  auto ttl = doc.find("ttlMs");
  if (ttl != doc.end() && !ttl->is_null()) {
    const bool integer = ttl->is_number_unsigned() || ttl->is_number_integer();
    if (!integer || ttl->get<std::int64_t>() < 0 || ttl->get<std::int64_t>() > kMaxKvTtlMs) {
      throw HttpError(400, "ttlMs must be a non-negative integer (milliseconds)");
    }
    request.ttl_ms = ttl->get<std::int64_t>();
  }
  return request;
}

std::string render_kv_value(const broker::KvValue& value) {
  // The stored value is spliced in as PostgreSQL rendered it (jsonb text is
  // valid JSON): never re-parsed, so no nesting depth a value reached in the
  // database (psql writes bypass the request limits) makes rendering recurse.
  std::string out;
  out.reserve(value.value_json.size() + value.key.size() + 64);
  out += "{\"key\":";
  util::append_json_string(out, value.key);
  out += ",\"value\":";
  out += value.value_json.empty() ? std::string("null") : value.value_json;
  out += ",\"expiresAt\":";
  if (value.expires_at_us) {
    util::append_json_string(out, util::format_iso8601_millis(*value.expires_at_us));
  } else {
    out += "null";
  }
  out += '}';
  return out;
}

std::string render_kv_deleted(const std::string& key, bool deleted) {
  return dump_json(json{{"key", key}, {"deleted", deleted}});
}

}  // namespace queen::http
