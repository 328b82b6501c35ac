#include "db/row_decode.h"
#include "db/database.h"

#include <pqxx/pqxx>

#include <spdlog/spdlog.h>

#include "db/connection_pool.h"
#include "db/db_error.h"

namespace queen::db {
namespace {

// The SQL text of every call the broker makes. Each runs as one autocommit
// statement (a nontransaction): one round trip, the procedure is the unit of
// atomicity. Timestamps leave the database as integer epoch microseconds so
// the broker formats them without depending on DateStyle.
constexpr const char* kConfigureQueue = "queen_configure_queue";
constexpr const char* kPushMessages = "queen_push_messages";
constexpr const char* kPopMessages = "queen_pop_messages";
constexpr const char* kAckMessages = "queen_ack_messages";
constexpr const char* kExtendLease = "queen_extend_lease";
constexpr const char* kSetSystemFlag = "queen_set_system_flag";
constexpr const char* kGetSystemFlag = "queen_get_system_flag";
constexpr const char* kPing = "queen_ping";
constexpr const char* kRunTransaction = "queen_run_transaction";
constexpr const char* kListDlq = "queen_list_dlq";
constexpr const char* kDeleteQueue = "queen_delete_queue";

void register_statements(pqxx::connection& c) {
  c.prepare(kConfigureQueue, "SELECT queen.configure_queue($1::text, $2::text, $3::text, $4::jsonb)::text");
  c.prepare(kPushMessages,
            "SELECT idx, status, message_id::text, transaction_id, partition_id::text, queue_name, "
            "partition_name, error FROM queen.push_messages($1::jsonb, $2::text)");
  c.prepare(kPopMessages,
            "SELECT lease_id::text, queue_name, partition_name, partition_id::text, message_id::text, "
            "transaction_id, trace_id::text, payload::text, producer_sub, is_encrypted, "
            "(extract(epoch from created_at) * 1000000)::int8, retry_count "
            "FROM queen.pop_messages($1::text, $2::text, $3::text, $4::int, $5::int, $6::bool, $7::text, "
            "$8::text, $9::text, $10::text)");
  c.prepare(kAckMessages,
            "SELECT idx, transaction_id, success, error, queue_name, partition_name, lease_released, dlq "
            "FROM queen.ack_messages($1::jsonb, $2::text)");
  c.prepare(kExtendLease,
            "SELECT success, (extract(epoch from expires_at) * 1000000)::int8, error "
            "FROM queen.extend_lease($1::uuid, $2::int)");
  c.prepare(kSetSystemFlag, "SELECT queen.set_system_flag($1::text, $2::bool)");
  c.prepare(kGetSystemFlag, "SELECT queen.get_system_flag($1::text)");
  c.prepare(kPing, "SELECT 1");
  c.prepare(kRunTransaction, "SELECT queen.run_transaction($1::jsonb, $2::text)::text");
  // from/to travel as epoch milliseconds (exact, no text timestamp parsing).
  c.prepare(kListDlq,
            "SELECT message_id::text, transaction_id, partition_id::text, queue_name, partition_name, "
            "consumer_group, error_message, retry_count, payload::text, is_encrypted, producer_sub, trace_id::text, "
            "(extract(epoch from created_at) * 1000000)::int8, (extract(epoch from failed_at) * 1000000)::int8, total "
            "FROM queen.list_dlq($1::text, $2::text, $3::text, "
            "'epoch'::timestamptz + $4::int8 * interval '1 millisecond', "
            "'epoch'::timestamptz + $5::int8 * interval '1 millisecond', $6::int, $7::int)");
  c.prepare(kDeleteQueue, "SELECT queen.delete_queue($1::text)");
}

bool bool_or_false(const pqxx::field& f) { return !f.is_null() && f.as<bool>(); }

}  // namespace

Database::Database(const config::DbConfig& config)
    : pool_(std::make_unique<ConnectionPool>(config, register_statements)) {}

Database::~Database() = default;

// Runs fn(nontransaction&) on a pooled connection and translates libpqxx
// exceptions into DbError. A connection that was idle in the pool may have
// died meanwhile (database restart): a broken_connection on such a reused
// connection is retried once on a fresh one, so a restart costs no request.
template <typename Fn>
auto Database::run(const char* what, Fn&& fn) {
  for (int attempt = 0;; ++attempt) {
    auto lease = [&] {
      try {
        return pool_->acquire();
      } catch (const DbError&) {
        healthy_.store(false, std::memory_order_relaxed);
        throw;
      }
    }();
    try {
      pqxx::nontransaction tx(lease.connection());
      auto result = fn(tx);
      healthy_.store(true, std::memory_order_relaxed);
      return result;
    } catch (const pqxx::broken_connection& e) {
      lease.discard();
      if (lease.reused() && attempt == 0) {
        spdlog::debug("db: {}: stale pooled connection ({}), retrying on a new one", what, e.what());
        continue;
      }
      healthy_.store(false, std::memory_order_relaxed);
      throw DbError(what, e.what(), "");
    } catch (const pqxx::sql_error& e) {
      if (!lease.connection().is_open()) lease.discard();
      DbError error(what, e.what(), e.sqlstate());
      if (error.transient()) healthy_.store(false, std::memory_order_relaxed);
      throw error;
    } catch (const pqxx::failure& e) {
      // in_doubt_error, protocol violations ...: do not trust the connection.
      lease.discard();
      healthy_.store(false, std::memory_order_relaxed);
      throw DbError(what, e.what(), "");
    }
  }
}

ConfiguredQueue Database::configure_queue(const std::string& queue, const std::string& namespace_name,
                                          const std::string& task, const std::string& options_json) {
  return run("configure_queue", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kConfigureQueue, queue, namespace_name, task, options_json);
    ConfiguredQueue out;
    if (!r.empty()) out.result_json = text_or_empty(r[0][0]);
    return out;
  });
}

std::vector<PushRow> Database::push_messages(const std::string& items_json,
                                             const std::optional<std::string>& producer_sub) {
  return run("push_messages", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kPushMessages, items_json, producer_sub);
    std::vector<PushRow> rows;
    rows.reserve(r.size());
    for (const auto& row : r) rows.push_back(push_row_of(row));
    return rows;
  });
}

std::vector<PoppedMessage> Database::pop_messages(const PopRequest& q) {
  return run("pop_messages", [&](pqxx::nontransaction& tx) {
    const pqxx::result r =
        tx.exec_prepared(kPopMessages, q.queue, q.partition, q.consumer_group, q.batch, q.partitions, q.auto_ack,
                         q.subscription_mode, q.subscription_from, q.namespace_name, q.task);
    std::vector<PoppedMessage> messages;
    messages.reserve(r.size());
    for (const auto& row : r) {
      PoppedMessage m;
      m.lease_id = optional_text(row[0]);
      m.queue_name = text_or_empty(row[1]);
      m.partition_name = text_or_empty(row[2]);
      m.partition_id = text_or_empty(row[3]);
      m.message_id = text_or_empty(row[4]);
      m.transaction_id = text_or_empty(row[5]);
      m.trace_id = optional_text(row[6]);
      m.payload_json = row[7].is_null() ? std::string("null") : text_or_empty(row[7]);
      m.producer_sub = optional_text(row[8]);
      m.is_encrypted = bool_or_false(row[9]);
      m.created_at_us = row[10].is_null() ? 0 : row[10].as<std::int64_t>();
      m.retry_count = row[11].is_null() ? 0 : row[11].as<int>();
      messages.push_back(std::move(m));
    }
    return messages;
  });
}

std::vector<AckRow> Database::ack_messages(const std::string& acks_json,
                                           const std::optional<std::string>& consumer_group) {
  return run("ack_messages", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kAckMessages, acks_json, consumer_group);
    std::vector<AckRow> rows;
    rows.reserve(r.size());
    for (const auto& row : r) {
      AckRow a;
      a.idx = row[0].as<int>();
      a.transaction_id = text_or_empty(row[1]);
      a.success = bool_or_false(row[2]);
      a.error = optional_text(row[3]);
      a.queue_name = optional_text(row[4]);
      a.partition_name = optional_text(row[5]);
      a.lease_released = bool_or_false(row[6]);
      a.dlq = bool_or_false(row[7]);
      rows.push_back(std::move(a));
    }
    return rows;
  });
}

LeaseExtension Database::extend_lease(const std::string& lease_id, int seconds) {
  return run("extend_lease", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kExtendLease, lease_id, seconds);
    LeaseExtension out;
    if (r.empty()) {
      out.error = "Lease not found";
      return out;
    }
    out.success = bool_or_false(r[0][0]);
    if (!r[0][1].is_null()) out.expires_at_us = r[0][1].as<std::int64_t>();
    out.error = optional_text(r[0][2]);
    return out;
  });
}

bool Database::set_system_flag(const std::string& key, bool enabled) {
  return run("set_system_flag", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kSetSystemFlag, key, enabled);
    return !r.empty() && bool_or_false(r[0][0]);
  });
}

bool Database::get_system_flag(const std::string& key) {
  return run("get_system_flag", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kGetSystemFlag, key);
    return !r.empty() && bool_or_false(r[0][0]);
  });
}

std::chrono::microseconds Database::ping() {
  const auto started = std::chrono::steady_clock::now();
  run("ping", [&](pqxx::nontransaction& tx) { return tx.exec_prepared(kPing).size(); });
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
}

std::string Database::run_transaction(const std::string& ops_json, const std::optional<std::string>& producer_sub) {
  return run("run_transaction", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kRunTransaction, ops_json, producer_sub);
    return r.empty() ? std::string() : text_or_empty(r[0][0]);
  });
}

DlqPage Database::list_dlq(const DlqQuery& q) {
  return run("list_dlq", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kListDlq, q.queue, q.consumer_group, q.partition, q.failed_from_ms,
                                            q.failed_to_ms, q.limit, q.offset);
    DlqPage page;
    page.entries.reserve(r.size());
    for (const auto& row : r) {
      DlqEntry e;
      e.message_id = text_or_empty(row[0]);
      e.transaction_id = text_or_empty(row[1]);
      e.partition_id = text_or_empty(row[2]);
      e.queue_name = text_or_empty(row[3]);
      e.partition_name = text_or_empty(row[4]);
      e.consumer_group = text_or_empty(row[5]);
      e.error_message = optional_text(row[6]);
      e.retry_count = row[7].is_null() ? 0 : row[7].as<int>();
      e.payload_json = row[8].is_null() ? std::string("null") : text_or_empty(row[8]);
      e.is_encrypted = bool_or_false(row[9]);
      e.producer_sub = optional_text(row[10]);
      e.trace_id = optional_text(row[11]);
      e.created_at_us = row[12].is_null() ? 0 : row[12].as<std::int64_t>();
      e.failed_at_us = row[13].is_null() ? 0 : row[13].as<std::int64_t>();
      page.total = row[14].as<std::int64_t>();
      page.entries.push_back(std::move(e));
    }
    // Every row carries the total; a page past the end has no row, so the
    // total comes from a one-row probe of the first page (procedures.md).
    if (r.empty() && q.offset > 0) {
      const pqxx::result probe = tx.exec_prepared(kListDlq, q.queue, q.consumer_group, q.partition,
                                                  q.failed_from_ms, q.failed_to_ms, 1, 0);
      if (!probe.empty()) page.total = probe[0][14].as<std::int64_t>();
    }
    return page;
  });
}

bool Database::delete_queue(const std::string& queue) {
  return run("delete_queue", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kDeleteQueue, queue);
    return !r.empty() && bool_or_false(r[0][0]);
  });
}

PoolStats Database::pool_stats() const { return pool_->stats(); }

}  // namespace queen::db
