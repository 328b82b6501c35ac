#include "broker/transactions.h"

#include <chrono>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "broker/admission.h"
#include "broker/broker_error.h"
#include "broker/encoding.h"
#include "broker/pop_wakes.h"
#include "broker/push.h"
#include "db/db_error.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

void seal_transaction(const PayloadEncryption& encryption, const Tenant& tenant, TransactionCommand& command) {
  for (auto& op : command.operations) encryption.seal_items(tenant, op.items);
}

}  // namespace

std::string encode_transaction(const TransactionCommand& command) {
  std::string out = "{\"operations\":[";
  for (std::size_t i = 0; i < command.operations.size(); ++i) {
    const TransactionOperation& op = command.operations[i];
    if (i) out += ',';
    if (op.kind == TransactionOperation::Kind::Verbatim) {
      out += op.verbatim_json;
      continue;
    }
    out += "{\"type\":\"push\",\"items\":[";
    for (std::size_t j = 0; j < op.items.size(); ++j) {
      if (j) out += ',';
      append_push_item(out, op.items[j]);
    }
    out += "]}";
  }
  out += "],\"requiredLeases\":[";
  for (std::size_t i = 0; i < command.required_leases.size(); ++i) {
    if (i) out += ',';
    util::append_json_string(out, command.required_leases[i]);
  }
  out += "]}";
  return out;
}

TransactionSummary summarize_transaction_result(const std::string& result_json) {
  const nlohmann::json result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("success") || !result["success"].is_boolean()) {
    throw std::invalid_argument("run_transaction returned no success flag: " + result_json.substr(0, 200));
  }
  TransactionSummary summary;
  summary.success = result["success"].get<bool>();
  const auto results = result.find("results");
  if (results == result.end() || !results->is_array()) return summary;
  for (const auto& entry : *results) {
    if (!entry.is_object()) continue;
    const std::string type = entry.value("type", "");
    if (type == "push") {
      ++summary.pushed;
    } else if (type == "ack") {
      ++summary.acked;
    }
  }
  return summary;
}

std::set<std::string> queues_to_wake(const TransactionCommand& command, std::int64_t now_ms) {
  std::set<std::string> queues;
  for (const auto& op : command.operations) add_queues_to_wake(op.items, now_ms, queues);
  return queues;
}

bool schedules_timers(const TransactionCommand& command, std::int64_t now_ms) {
  for (const auto& op : command.operations) {
    if (schedules_timers(op.items, now_ms)) return true;
  }
  return false;
}

TransactionSummary Transactions::call_run_transaction(const TransactionCommand& command, const PushOrigin& origin,
                                                      TransactionOutcome& outcome) {
  // No maintenance or spool diversion on purpose: a transaction is all or
  // nothing against PostgreSQL, so an outage answers 503 and the
  // clients' 5xx retries are safe (nothing was committed).
  outcome.result_json = translating_db_failures(metrics_, [&] {
    // A transaction writes like a push: one Push-lane slot for its one call.
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Push);
    return db_.run_transaction(encode_transaction(command), origin);
  });
  try {
    return summarize_transaction_result(outcome.result_json);
  } catch (const std::invalid_argument& e) {
    spdlog::error("transaction: {}", e.what());
    throw BrokerError(ErrorKind::Internal, "the database returned an unreadable transaction result");
  }
}

TransactionOutcome Transactions::run_transaction(TransactionCommand command, const PushOrigin& origin) {
  // Minted here as on /push, so the ids are the broker's whatever the
  // database would mint; the response names every pushed item either way.
  std::size_t pushed_items = 0;
  for (auto& op : command.operations) {
    mint_transaction_ids(op.items);
    pushed_items += op.items.size();
  }
  throw_if_refused(quotas_.push_refusal(origin.tenant, pushed_items));
  seal_transaction(encryption_, origin.tenant, command);
  TransactionOutcome outcome;
  TransactionSummary summary = call_run_transaction(command, origin, outcome);
  if (!summary.success && encryption_.enabled() && names_refused_plaintext(outcome.result_json)) {
    // This broker's list of encrypted queues was stale and the database
    // rolled everything back: re-read the list, seal, run once more.
    translating_db_failures(metrics_, [&] { encryption_.refresh(); });
    seal_transaction(encryption_, origin.tenant, command);
    summary = call_run_transaction(command, origin, outcome);
  }
  outcome.success = summary.success;
  if (!summary.success) return outcome;  // rolled back: nothing to announce

  metrics_.record_push(summary.pushed);
  quotas_.note_accepted(origin.tenant, summary.pushed);
  metrics_.record_ack(summary.acked, 0);
  // Same after-commit path as a live /push: local long polls and, with the
  // mesh, the peers' ones. Scheduled items are the sweeper's to announce.
  const std::int64_t now_ms = now_epoch_ms();
  listeners_.messages_committed(queues_to_wake(command, now_ms));
  if (schedules_timers(command, now_ms)) listeners_.timers_scheduled();
  return outcome;
}

}  // namespace queen::broker
