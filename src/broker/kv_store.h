#pragma once
// The KV use cases behind /api/v1/kv/:key: a JSON value per key with an
// optional TTL, kept in PostgreSQL (queen.kv_*), so every broker reads the
// same value and an expired key is absent on every broker at once. Database
// failures become BrokerError (503 while PostgreSQL is unreachable).
#include <cstdint>
#include <optional>
#include <string>

#include "broker/admission.h"
#include "tenant/tenant.h"

namespace queen::db {
class KvProcedures;
}

namespace queen::broker {

struct KvValue {
  std::string key;
  std::string value_json;                     // any JSON, as text
  std::optional<std::int64_t> expires_at_us;  // epoch microseconds; empty: no TTL
};

class KvStore {
 public:
  explicit KvStore(db::KvProcedures& db) : db_(db) {}

  // Stores value_json under key (replacing any value and TTL); ttl_ms empty:
  // no expiry. The caller validated key, value and TTL.
  // `tenant` owns the key; tenants never share keys.
  KvValue put(const std::string& key, const std::string& value_json, std::optional<std::int64_t> ttl_ms,
              const Tenant& tenant);
  // Empty when the key is absent or expired. A read: it goes through the
  // ReadGate given to read_through() (the Read lane, the read statement timeout).
  std::optional<KvValue> get(const std::string& key, const Tenant& tenant);
  // True when a live value was deleted.
  bool remove(const std::string& key, const Tenant& tenant);

  // The gate of get(): set once, before the first request (the store is
  // built with the cluster, before the broker that owns the arbiter).
  void read_through(const ReadGate& reads) { reads_ = &reads; }

 private:
  db::KvProcedures& db_;
  const ReadGate* reads_ = nullptr;
};

}  // namespace queen::broker
