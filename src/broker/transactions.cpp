#include "broker/transactions.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "broker/encoding.h"
#include "util/json_text.h"

namespace queen::broker {

std::string encode_transaction(const TransactionCommand& command) {
  std::string out = "{\"operations\":[";
  for (std::size_t i = 0; i < command.operations.size(); ++i) {
    const TransactionOperation& op = command.operations[i];
    if (i) out += ',';
    if (op.kind == TransactionOperation::Kind::Verbatim) {
      out += op.verbatim_json;
      continue;
    }
    out += "{\"type\":\"push\",\"items\":";
    append_push_items(out, op.items);
    out += '}';
  }
  out += "],\"requiredLeases\":[";
  for (std::size_t i = 0; i < command.required_leases.size(); ++i) {
    if (i) out += ',';
    util::append_json_string(out, command.required_leases[i]);
  }
  out += "]}";
  return out;
}

WriteSummary summarize_transaction_result(const std::string& result_json) {
  const nlohmann::json result = parse_procedure_outcome(result_json, "transaction");
  WriteSummary summary;
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

PushedItems pushed_items(TransactionCommand& command) {
  PushedItems items;
  for (auto& op : command.operations) {
    if (op.kind == TransactionOperation::Kind::Push) items.push_back(&op.items);
  }
  return items;
}

ProcedureOutcome Transactions::run_transaction(TransactionCommand command, const PushOrigin& origin) {
  WriteResult result = writer_.run(
      pushed_items(command), origin.tenant,
      [&] { return db_.run_transaction(encode_transaction(command), origin); },
      summarize_transaction_result);
  if (result.summary.success) metrics_.record_ack(result.summary.acked, 0);
  return ProcedureOutcome{std::move(result.result_json), result.summary.success};
}

}  // namespace queen::broker
