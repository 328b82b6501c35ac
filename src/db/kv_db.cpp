#include "db/kv_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"

namespace queen::db {

using namespace statement;

std::optional<std::int64_t> KvDb::set(const std::string& key, const std::string& value_json,
                                      std::optional<std::int64_t> ttl_ms, const std::string& tenant) {
  return runner_.run("kv_set", [&](pqxx::nontransaction& tx) {
    return first_value<std::int64_t>(tx.exec_prepared(kKvSet, key, value_json, ttl_ms, tenant), "expires_at_us");
  });
}

std::optional<KvEntry> KvDb::get(const std::string& key, const std::string& tenant) {
  return runner_.run("kv_get", [&](pqxx::nontransaction& tx) {
    std::vector<KvEntry> entries = decode_rows<KvEntryDecoder>(tx.exec_prepared(kKvGet, key, tenant));
    return entries.empty() ? std::nullopt : std::optional<KvEntry>(std::move(entries.front()));
  });
}

bool KvDb::remove(const std::string& key, const std::string& tenant) {
  return runner_.run("kv_delete", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kKvDelete, key, tenant), "deleted").value_or(false);
  });
}

int KvDb::prune_expired(int limit) {
  return runner_.run("kv_prune_expired", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kKvPruneExpired, limit), "pruned").value_or(0);
  });
}

}  // namespace queen::db
