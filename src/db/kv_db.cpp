#include "db/kv_db.h"

#include <pqxx/pqxx>

#include "db/timers_db.h"  // run_pooled

namespace queen::db {

std::optional<std::int64_t> KvDb::set(const std::string& key, const std::string& value_json,
                                      std::optional<std::int64_t> ttl_ms) {
  std::optional<std::int64_t> expires_at_us;
  run_pooled(pool_, "kv_set", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params(
        "SELECT (extract(epoch FROM queen.kv_set($1::text, $2::jsonb, $3::int8)) * 1000000)::int8", key, value_json,
        ttl_ms);
    if (!r.empty() && !r[0][0].is_null()) expires_at_us = r[0][0].as<std::int64_t>();
  });
  return expires_at_us;
}

std::optional<KvEntry> KvDb::get(const std::string& key) {
  std::optional<KvEntry> entry;
  run_pooled(pool_, "kv_get", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params(
        "SELECT value::text, (extract(epoch FROM expires_at) * 1000000)::int8 FROM queen.kv_get($1::text)", key);
    if (r.empty()) return;
    KvEntry e;
    e.value_json = r[0][0].is_null() ? std::string("null") : std::string(r[0][0].c_str(), r[0][0].size());
    if (!r[0][1].is_null()) e.expires_at_us = r[0][1].as<std::int64_t>();
    entry = std::move(e);
  });
  return entry;
}

bool KvDb::remove(const std::string& key) {
  bool deleted = false;
  run_pooled(pool_, "kv_delete", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params("SELECT queen.kv_delete($1::text)", key);
    deleted = !r.empty() && !r[0][0].is_null() && r[0][0].as<bool>();
  });
  return deleted;
}

int KvDb::prune_expired(int limit) {
  int pruned = 0;
  run_pooled(pool_, "kv_prune_expired", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params("SELECT queen.kv_prune_expired($1::int)", limit);
    pruned = r.empty() || r[0][0].is_null() ? 0 : r[0][0].as<int>();
  });
  return pruned;
}

}  // namespace queen::db
