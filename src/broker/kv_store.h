#pragma once
// The KV use cases behind /api/v1/kv/:key: a JSON value per key with an
// optional TTL, kept in PostgreSQL (queen.kv_*), so every broker reads the
// same value and an expired key is absent on every broker at once. Database
// failures become BrokerError (503 while PostgreSQL is unreachable).
#include <cstdint>
#include <optional>
#include <string>

namespace queen::db {
class KvDb;
}

namespace queen::broker {

struct KvValue {
  std::string key;
  std::string value_json;                     // any JSON, as text
  std::optional<std::int64_t> expires_at_us;  // epoch microseconds; empty: no TTL
};

class KvStore {
 public:
  explicit KvStore(db::KvDb& db) : db_(db) {}

  // Stores value_json under key (replacing any value and TTL); ttl_ms empty:
  // no expiry. The caller validated key, value and TTL.
  // `tenant` owns the key ("" = the default tenant); tenants never share keys.
  KvValue put(const std::string& key, const std::string& value_json, std::optional<std::int64_t> ttl_ms,
              const std::string& tenant);
  // Empty when the key is absent or expired.
  std::optional<KvValue> get(const std::string& key, const std::string& tenant);
  // True when a live value was deleted.
  bool remove(const std::string& key, const std::string& tenant);

 private:
  db::KvDb& db_;
};

}  // namespace queen::broker
