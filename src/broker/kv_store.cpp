#include "broker/kv_store.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "db/kv_db.h"
#include "util/assert.h"

namespace queen::broker {

KvValue KvStore::put(const std::string& key, const std::string& value_json, std::optional<std::int64_t> ttl_ms,
                     const Tenant& tenant) {
  return KvValue{key, value_json, translating_db_failures([&] { return db_.set(key, value_json, ttl_ms, tenant); })};
}

std::optional<KvValue> KvStore::get(const std::string& key, const Tenant& tenant) {
  QUEEN_ASSERT(reads_ != nullptr, "KV reads go through the Read lane (read_through before the first request)");
  std::optional<db::KvEntry> entry =
      translating_db_failures([&] { return reads_->run([&] { return db_.get(key, tenant); }); });
  if (!entry) return std::nullopt;
  return KvValue{key, std::move(entry->value_json), entry->expires_at_us};
}

bool KvStore::remove(const std::string& key, const Tenant& tenant) {
  return translating_db_failures([&] { return db_.remove(key, tenant); });
}

}  // namespace queen::broker
