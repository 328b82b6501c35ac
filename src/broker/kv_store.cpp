#include "broker/kv_store.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "broker/tenant_quotas.h"
#include "db/db_error.h"
#include "db/kv_db.h"
#include "util/assert.h"

namespace queen::broker {
namespace {

[[noreturn]] void rethrow_kv_error(const db::DbError& e) {
  rethrow_if_storage_quota(e);
  if (e.transient()) {
    spdlog::warn("kv: database unavailable: {}", e.what());
    throw BrokerError(ErrorKind::Unavailable, kDatabaseUnavailable);
  }
  // 22023 from queen.kv_check_key and friends: the request was bad.
  // Clients see the primary message alone (db/error_text.h), the log the full text.
  if (e.sqlstate().rfind("22", 0) == 0) {
    spdlog::info("kv: request rejected ({}): {}", e.sqlstate(), e.what());
    throw BrokerError(ErrorKind::BadRequest, e.client_message());
  }
  spdlog::error("kv: database failure ({}): {}", e.sqlstate(), e.what());
  throw BrokerError(ErrorKind::Internal, e.client_message());
}

}  // namespace

KvValue KvStore::put(const std::string& key, const std::string& value_json, std::optional<std::int64_t> ttl_ms,
                     const std::string& tenant) {
  try {
    KvValue stored{key, value_json, db_.set(key, value_json, ttl_ms, tenant)};
    return stored;
  } catch (const db::DbError& e) {
    rethrow_kv_error(e);
  }
}

std::optional<KvValue> KvStore::get(const std::string& key, const std::string& tenant) {
  QUEEN_ASSERT(reads_ != nullptr, "KV reads go through the Read lane (read_through before the first request)");
  try {
    std::optional<db::KvEntry> entry = reads_->run([&] { return db_.get(key, tenant); });
    if (!entry) return std::nullopt;
    return KvValue{key, std::move(entry->value_json), entry->expires_at_us};
  } catch (const db::DbError& e) {
    rethrow_kv_error(e);
  }
}

bool KvStore::remove(const std::string& key, const std::string& tenant) {
  try {
    return db_.remove(key, tenant);
  } catch (const db::DbError& e) {
    rethrow_kv_error(e);
  }
}

}  // namespace queen::broker
