#include "http/api/transaction_request.h"

#include <nlohmann/json.hpp>

#include "http/api/push_request.h"
#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"

namespace queen::http {
namespace {

using nlohmann::json;

constexpr const char* kOperationsRequired = "operations array required";
constexpr const char* kBadRequiredLeases = "requiredLeases must be an array of lease ids";

// A push operation whose items the broker can type; anything else travels
// verbatim and is judged by the database.
bool is_typed_push(const json& op) {
  if (!op.is_object()) return false;
  const auto type = op.find("type");
  const auto items = op.find("items");
  return type != op.end() && *type == "push" && items != op.end() && items->is_array();
}

broker::TransactionOperation parse_operation(const json& op, const config::LimitsConfig& limits) {
  broker::TransactionOperation out;
  if (is_typed_push(op)) {
    out.kind = broker::TransactionOperation::Kind::Push;
    out.items = parse_push_items(op["items"], limits);
  } else {
    out.kind = broker::TransactionOperation::Kind::Verbatim;
    out.verbatim_json = dump_json(op);
  }
  return out;
}

std::vector<std::string> parse_required_leases(const json& doc, const config::LimitsConfig& limits) {
  const auto leases = doc.find("requiredLeases");
  if (leases == doc.end() || leases->is_null()) return {};  // null is absent
  if (!leases->is_array()) throw HttpError(400, kBadRequiredLeases);
  std::vector<std::string> out;
  out.reserve(leases->size());
  for (const auto& lease : *leases) {
    if (!lease.is_string()) throw HttpError(400, kBadRequiredLeases);
    check_name(lease.get_ref<const std::string&>(), "requiredLeases entry", limits);
    out.push_back(lease.get<std::string>());
  }
  return out;
}

}  // namespace

broker::TransactionCommand parse_transaction_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, kOperationsRequired);
  const auto operations = doc.find("operations");
  if (operations == doc.end() || !operations->is_array()) throw HttpError(400, kOperationsRequired);
  if (operations->empty()) throw HttpError(400, "operations array cannot be empty");

  broker::TransactionCommand command;
  command.operations.reserve(operations->size());
  // PUSH_MAX_ITEMS bounds the items of the whole transaction, as of one push.
  std::size_t push_items = 0;
  for (const auto& op : *operations) {
    if (is_typed_push(op)) push_items += op["items"].size();
  }
  check_push_item_count(push_items, limits);
  for (const auto& op : *operations) command.operations.push_back(parse_operation(op, limits));
  command.required_leases = parse_required_leases(doc, limits);
  return command;
}

}  // namespace queen::http
