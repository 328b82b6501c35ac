#include "db/database.h"


#include <tuple>
#include <utility>

#include <pqxx/pqxx>

#include "db/catalogue_calls.h"
#include "db/row_decode.h"
#include "util/assert.h"

namespace queen::db {

using namespace catalogue;

Database::Database(const config::DbConfig& config) : runner_(config, register_statements) {}

Database::~Database() = default;

ConfiguredQueue Database::configure_queue(const std::string& queue, const std::string& namespace_name,
                                          const std::string& task, const std::string& options_json,
                                          const Tenant& tenant) {
  return ConfiguredQueue{
      call_first<ConfigureQueue>(runner_, queue, namespace_name, task, options_json, tenant).value_or(std::string())};
}

std::vector<PushRow> Database::push_messages(const std::string& items_json, const PushOrigin& origin) {
  return call_rows<PushMessages>(runner_, items_json, origin.producer_sub, origin.tenant);
}

std::vector<PoppedMessage> Database::pop_messages(const PopRequest& q) {
  return std::apply([this](const auto&... fields) { return call_rows<PopMessages>(runner_, fields...); },
                    fields_of(q));
}

std::vector<AckRow> Database::ack_messages(const std::string& acks_json,
                                           const std::optional<std::string>& consumer_group,
                                           const Tenant& tenant) {
  return call_rows<AckMessages>(runner_, acks_json, consumer_group, tenant);
}

std::vector<CombinedPopRow> Database::pop_many(int requests, const PopRequest& q) {
  return std::apply(
      [this, requests](const auto&... fields) { return call_rows<PopMany>(runner_, requests, fields...); },
      fields_of(q));
}

std::vector<CombinedAckRow> Database::ack_many(const std::string& requests_json, const Tenant& tenant) {
  return call_rows<AckMany>(runner_, requests_json, tenant);
}

LeaseExtension Database::extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant) {
  std::vector<LeaseExtension> extended = call_rows<ExtendLease>(runner_, lease_id, seconds, tenant);
  if (extended.empty()) {
    LeaseExtension not_found;
    not_found.error = "Lease not found";
    return not_found;
  }
  return std::move(extended.front());
}

bool Database::set_system_flag(const std::string& key, bool enabled) {
  return call_first<SetSystemFlag>(runner_, key, enabled).value_or(false);
}

bool Database::get_system_flag(const std::string& key) {
  return call_first<GetSystemFlag>(runner_, key).value_or(false);
}

std::chrono::microseconds Database::ping() {
  const auto started = std::chrono::steady_clock::now();
  runner_.run("ping", [&](pqxx::nontransaction& tx) { return tx.exec_prepared(kPingStatement).size(); });
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
}

std::string Database::run_transaction(const std::string& ops_json, const PushOrigin& origin) {
  return call_first<RunTransaction>(runner_, ops_json, origin.producer_sub, origin.tenant).value_or(std::string());
}

std::string Database::stream_register_query(const std::string& request_json, const Tenant& tenant) {
  return call_first<StreamRegisterQuery>(runner_, request_json, tenant).value_or(std::string());
}

std::string Database::stream_state_get(const std::string& request_json, const Tenant& tenant) {
  return call_first<StreamStateGet>(runner_, request_json, tenant).value_or(std::string());
}

std::string Database::stream_cycle(const std::string& cycle_json, const PushOrigin& origin) {
  return call_first<StreamCycle>(runner_, cycle_json, origin.producer_sub, origin.tenant).value_or(std::string());
}

DlqPage Database::list_dlq(const DlqQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  return runner_.run("list_dlq", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = exec<ListDlq>(tx, q.queue, q.consumer_group, q.partition, q.failed_from_ms,
                                            q.failed_to_ms, q.limit, q.offset, q.tenant, q.max_payload_bytes);
    const RowDecoder<ListDlq::result> decode(r);
    DlqPage page;
    page.entries.reserve(r.size());
    for (const auto& row : r) {
      DlqRow decoded = decode(row);
      page.entries.push_back(std::move(decoded.entry));
      page.total = decoded.total;
    }
    // Every row carries the total; a page past the end has no row, so the
    // total comes from a one-row probe of the first page (procedures.md).
    if (r.empty() && q.offset > 0) {
      const pqxx::result probe = exec<ListDlq>(tx, q.queue, q.consumer_group, q.partition, q.failed_from_ms,
                                               q.failed_to_ms, 1, 0, q.tenant, q.max_payload_bytes);
      page.total = first_value<std::int64_t>(probe, "total").value_or(0);
    }
    return page;
  });
}

bool Database::delete_queue(const std::string& queue, const Tenant& tenant) {
  return call_first<DeleteQueue>(runner_, queue, tenant).value_or(false);
}

TenantQuotaState Database::tenant_quota_state(const Tenant& tenant) {
  std::vector<TenantQuotaState> states = call_rows<QuotaStateOfTenant>(runner_, tenant);
  return states.empty() ? db::TenantQuotaState{} : states.front();
}

std::vector<TenantQueue> Database::encrypted_queue_names() {
  return call_rows<EncryptedQueueNames>(runner_);
}

int Database::dead_letter_undecryptable(const std::string& items_json,
                                        const std::optional<std::string>& consumer_group, const Tenant& tenant) {
  return call_first<DeadLetterUndecryptable>(runner_, items_json, consumer_group, tenant).value_or(0);
}

}  // namespace queen::db
