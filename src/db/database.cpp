#include "db/database.h"


#include <pqxx/pqxx>

#include "db/row_decode.h"
#include "db/statements.h"
#include "util/assert.h"

namespace queen::db {

using namespace statement;

Database::Database(const config::DbConfig& config) : runner_(config, register_statements) {}

Database::~Database() = default;

ConfiguredQueue Database::configure_queue(const std::string& queue, const std::string& namespace_name,
                                          const std::string& task, const std::string& options_json,
                                          const std::string& tenant) {
  return runner_.run("configure_queue", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kConfigureQueue, queue, namespace_name, task, options_json, tenant);
    return ConfiguredQueue{first_value<std::string>(r, "result_json").value_or(std::string())};
  });
}

std::vector<PushRow> Database::push_messages(const std::string& items_json, const PushOrigin& origin) {
  return runner_.run("push_messages", [&](pqxx::nontransaction& tx) {
    return decode_rows<PushRowDecoder>(
        tx.exec_prepared(kPushMessages, items_json, origin.producer_sub, origin.tenant));
  });
}

std::vector<PoppedMessage> Database::pop_messages(const PopRequest& q) {
  return runner_.run("pop_messages", [&](pqxx::nontransaction& tx) {
    return decode_rows<PoppedMessageDecoder>(
        tx.exec_prepared(kPopMessages, q.queue, q.partition, q.consumer_group, q.batch, q.partitions, q.auto_ack,
                         q.subscription_mode, q.subscription_from, q.namespace_name, q.task, q.tenant));
  });
}

std::vector<AckRow> Database::ack_messages(const std::string& acks_json,
                                           const std::optional<std::string>& consumer_group,
                                           const std::string& tenant) {
  return runner_.run("ack_messages", [&](pqxx::nontransaction& tx) {
    return decode_rows<AckRowDecoder>(tx.exec_prepared(kAckMessages, acks_json, consumer_group, tenant));
  });
}

std::vector<CombinedPopRow> Database::pop_many(int requests, const PopRequest& q) {
  return runner_.run("pop_many", [&](pqxx::nontransaction& tx) {
    return decode_rows<CombinedRowDecoder<PoppedMessageDecoder>>(
        tx.exec_prepared(kPopMany, requests, q.queue, q.partition, q.consumer_group, q.batch, q.partitions,
                         q.auto_ack, q.subscription_mode, q.subscription_from, q.namespace_name, q.task, q.tenant));
  });
}

std::vector<CombinedAckRow> Database::ack_many(const std::string& requests_json, const std::string& tenant) {
  return runner_.run("ack_many", [&](pqxx::nontransaction& tx) {
    return decode_rows<CombinedRowDecoder<AckRowDecoder>>(tx.exec_prepared(kAckMany, requests_json, tenant));
  });
}

LeaseExtension Database::extend_lease(const std::string& lease_id, int seconds, const std::string& tenant) {
  return runner_.run("extend_lease", [&](pqxx::nontransaction& tx) {
    std::vector<LeaseExtension> rows =
        decode_rows<LeaseExtensionDecoder>(tx.exec_prepared(kExtendLease, lease_id, seconds, tenant));
    if (rows.empty()) {
      LeaseExtension not_found;
      not_found.error = "Lease not found";
      return not_found;
    }
    return std::move(rows.front());
  });
}

bool Database::set_system_flag(const std::string& key, bool enabled) {
  return runner_.run("set_system_flag", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kSetSystemFlag, key, enabled), "enabled").value_or(false);
  });
}

bool Database::get_system_flag(const std::string& key) {
  return runner_.run("get_system_flag", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kGetSystemFlag, key), "enabled").value_or(false);
  });
}

std::chrono::microseconds Database::ping() {
  const auto started = std::chrono::steady_clock::now();
  runner_.run("ping", [&](pqxx::nontransaction& tx) { return tx.exec_prepared(kPing).size(); });
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
}

std::string Database::run_transaction(const std::string& ops_json, const PushOrigin& origin) {
  return runner_.run("run_transaction", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kRunTransaction, ops_json, origin.producer_sub, origin.tenant);
    return first_value<std::string>(r, "result_json").value_or(std::string());
  });
}

DlqPage Database::list_dlq(const DlqQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  return runner_.run("list_dlq", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kListDlq, q.queue, q.consumer_group, q.partition, q.failed_from_ms,
                                            q.failed_to_ms, q.limit, q.offset, q.tenant, q.max_payload_bytes);
    const DlqEntryDecoder decode(r);
    DlqPage page;
    page.entries.reserve(r.size());
    for (const auto& row : r) {
      page.entries.push_back(decode(row));
      page.total = decode.total(row);
    }
    // Every row carries the total; a page past the end has no row, so the
    // total comes from a one-row probe of the first page (procedures.md).
    if (r.empty() && q.offset > 0) {
      const pqxx::result probe = tx.exec_prepared(kListDlq, q.queue, q.consumer_group, q.partition,
                                                  q.failed_from_ms, q.failed_to_ms, 1, 0, q.tenant,
                                                  q.max_payload_bytes);
      page.total = first_value<std::int64_t>(probe, "total").value_or(0);
    }
    return page;
  });
}

bool Database::delete_queue(const std::string& queue, const std::string& tenant) {
  return runner_.run("delete_queue", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kDeleteQueue, queue, tenant), "deleted").value_or(false);
  });
}

TenantQuotaState Database::tenant_quota_state(const std::string& tenant) {
  return runner_.run("tenant_quota_state", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kTenantQuotaState, tenant);
    TenantQuotaState state;
    state.max_pending = first_value<std::int64_t>(r, "max_pending");
    state.push_rate = first_value<double>(r, "push_rate");
    state.push_burst = first_value<int>(r, "push_burst");
    state.pending = first_value<std::int64_t>(r, "pending").value_or(0);
    state.counted_at_us = first_value<std::int64_t>(r, "counted_at_us");
    state.max_dead_letters = first_value<std::int64_t>(r, "max_dead_letters");
    state.dead_letters = first_value<std::int64_t>(r, "dead_letters").value_or(0);
    return state;
  });
}

std::vector<TenantQueue> Database::encrypted_queue_names() {
  return runner_.run("encrypted_queue_names", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kEncryptedQueueNames);
    std::vector<TenantQueue> queues;
    queues.reserve(r.size());
    for (const auto& row : r) {
      queues.push_back({row["tenant"].as<std::string>(std::string()), row["queue_name"].as<std::string>()});
    }
    return queues;
  });
}

int Database::dead_letter_undecryptable(const std::string& items_json,
                                        const std::optional<std::string>& consumer_group, const std::string& tenant) {
  return runner_.run("dead_letter_undecryptable", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kDeadLetterUndecryptable, items_json, consumer_group, tenant),
                            "dead_lettered")
        .value_or(0);
  });
}

}  // namespace queen::db
