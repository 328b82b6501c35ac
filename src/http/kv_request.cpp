#include "http/kv_request.h"

#include <nlohmann/json.hpp>

#include "http/http_types.h"
#include "http/json_body.h"
#include "util/time_format.h"

namespace queen::http {
namespace {

using nlohmann::json;

// Characters, as the database counts them (UTF-8 continuation bytes are not
// characters of their own).
std::size_t utf8_length(const std::string& text) {
  std::size_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace

void validate_kv_key(const std::string& key) {
  if (key.empty()) throw HttpError(400, "key must be a non-empty string");
  if (utf8_length(key) > kMaxKvKeyCharacters) {
    throw HttpError(400, "key must be at most " + std::to_string(kMaxKvKeyCharacters) + " characters");
  }
}

KvPutRequest parse_kv_put_body(const std::string& body) {
  const json doc = parse_json_body(body, BodyRule::Required);
  if (!doc.is_object()) throw HttpError(400, "value is required");
  auto value = doc.find("value");
  if (value == doc.end()) throw HttpError(400, "value is required");
  KvPutRequest request;
  request.value_json = value->dump(-1, ' ', false, json::error_handler_t::replace);
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
  json body = {
      {"key", value.key},
      {"value", json::parse(value.value_json)},
      {"expiresAt", value.expires_at_us ? json(util::format_iso8601_millis(*value.expires_at_us)) : json(nullptr)},
  };
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string render_kv_deleted(const std::string& key, bool deleted) {
  return json{{"key", key}, {"deleted", deleted}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace queen::http
