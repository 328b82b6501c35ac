#include "db/kv_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"

namespace queen::db {

using namespace catalogue;

std::optional<std::int64_t> KvDb::set(const std::string& key, const std::string& value_json,
                                      std::optional<std::int64_t> ttl_ms, const Tenant& tenant) {
  return call_first<KvSet>(runner_, key, value_json, ttl_ms, tenant);
}

std::optional<KvEntry> KvDb::get(const std::string& key, const Tenant& tenant) {
  std::vector<KvEntry> entries = call_rows<KvGet>(runner_, key, tenant);
  return entries.empty() ? std::nullopt : std::optional<KvEntry>(std::move(entries.front()));
}

bool KvDb::remove(const std::string& key, const Tenant& tenant) {
  return call_first<KvDelete>(runner_, key, tenant).value_or(false);
}

int KvDb::prune_expired(int limit) {
  return call_first<KvPruneExpired>(runner_, limit).value_or(0);
}

}  // namespace queen::db
