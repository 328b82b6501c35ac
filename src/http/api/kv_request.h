#pragma once
// Validation of the KV routes' input and the shape of their answers
// (PUT/GET/DELETE /api/v1/kv/:key). Pure: every 400 message is produced here
// (HttpError), unit-tested without a server.
#include <cstdint>
#include <optional>
#include <string>

#include "broker/kv_store.h"
#include "config/config.h"

namespace queen::http {

// A TTL longer than a century is a client bug, not a wish.
inline constexpr std::int64_t kMaxKvTtlMs = 100LL * 365 * 86400000;

// The :key path parameter (already percent-decoded): a name (check_name,
// input_limits.h) of 1..NAME_MAX_CHARS characters; queen_internal.kv_check_key
// accepts up to 255.
void validate_kv_key(const std::string& key, const config::LimitsConfig& limits = config::Config::defaults().limits);

struct KvPutRequest {
  std::string value_json;             // any JSON, null included
  std::optional<std::int64_t> ttl_ms;  // absent or null: no expiry
};
// PUT body {"value": <any JSON>, "ttlMs": <optional non-negative integer>}.
KvPutRequest parse_kv_put_body(const std::string& body,
                               const config::LimitsConfig& limits = config::Config::defaults().limits);

// {"key", "value", "expiresAt"} with expiresAt as ISO-8601 milliseconds or
// null; the value is the stored JSON text verbatim.
std::string render_kv_value(const broker::KvValue& value);
// {"key", "deleted"}.
std::string render_kv_deleted(const std::string& key, bool deleted);

}  // namespace queen::http
