#pragma once
// Typed calls of the KV procedures (sql/queen/kv_*.sql,
// docs/timers-kv-jobs.md), for the /api/v1/kv routes and the sweeper.
// Failures throw DbError; a bad key or a negative TTL is SQLSTATE 22023.
#include <cstdint>
#include <optional>
#include <string>

#include "tenant/tenant.h"

namespace queen::db {

class ProcedureRunner;

struct KvEntry {
  std::string value_json;                    // the stored JSON value, as text
  std::optional<std::int64_t> expires_at_us;  // epoch microseconds; empty: no TTL
};

// `tenant` everywhere: whose key it is ("" = the default tenant); tenants never share keys.
class KvProcedures {
 public:
  virtual ~KvProcedures() = default;
  // queen.kv_set: stores value_json (any JSON text) under key; ttl_ms empty =
  // no expiry. Returns the new expiresAt (epoch microseconds) or empty.
  virtual std::optional<std::int64_t> set(const std::string& key, const std::string& value_json,
                                          std::optional<std::int64_t> ttl_ms, const Tenant& tenant) = 0;
  // queen.kv_get: empty when the key is absent or expired.
  virtual std::optional<KvEntry> get(const std::string& key, const Tenant& tenant) = 0;
  // queen.kv_delete: true when a live value was deleted.
  virtual bool remove(const std::string& key, const Tenant& tenant) = 0;
  // queen.kv_prune_expired: deletes at most `limit` expired rows, returns how many.
  virtual int prune_expired(int limit) = 0;
};

class KvDb final : public KvProcedures {
 public:
  explicit KvDb(ProcedureRunner& runner) : runner_(runner) {}

  std::optional<std::int64_t> set(const std::string& key, const std::string& value_json,
                                  std::optional<std::int64_t> ttl_ms, const Tenant& tenant) override;
  std::optional<KvEntry> get(const std::string& key, const Tenant& tenant) override;
  bool remove(const std::string& key, const Tenant& tenant) override;
  int prune_expired(int limit) override;

 private:
  ProcedureRunner& runner_;
};

}  // namespace queen::db
