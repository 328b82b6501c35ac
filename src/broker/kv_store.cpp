#include "broker/kv_store.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "db/kv_db.h"
#include "util/assert.h"

namespace queen::broker {

KvValue KvStore::put(const std::string& key, const std::string& value_json, std::optional<std::int64_t> ttl_ms,
                     const Tenant& tenant) {
  try {
    KvValue stored{key, value_json, db_.set(key, value_json, ttl_ms, tenant)};
    return stored;
  } catch (const db::DbError& e) {
    throw broker_error_of(e);
  }
}

std::optional<KvValue> KvStore::get(const std::string& key, const Tenant& tenant) {
  QUEEN_ASSERT(reads_ != nullptr, "KV reads go through the Read lane (read_through before the first request)");
  try {
    std::optional<db::KvEntry> entry = reads_->run([&] { return db_.get(key, tenant); });
    if (!entry) return std::nullopt;
    return KvValue{key, std::move(entry->value_json), entry->expires_at_us};
  } catch (const db::DbError& e) {
    throw broker_error_of(e);
  }
}

bool KvStore::remove(const std::string& key, const Tenant& tenant) {
  try {
    return db_.remove(key, tenant);
  } catch (const db::DbError& e) {
    throw broker_error_of(e);
  }
}

}  // namespace queen::broker
