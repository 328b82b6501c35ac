#pragma once
// POST /api/v1/transaction body validation (docs/api-extensions.md). Pure: every 400 of
// the route comes from here.
#include <string>

#include "broker/transactions.h"
#include "config/config.h"

namespace queen::http {

// {"operations": [...], "requiredLeases": [...]?}. 400s: "Empty request
// body", "Invalid JSON: ...", "operations array required", "operations array
// cannot be empty", "requiredLeases must be an array of lease ids", and the
// /push item messages for a malformed item of a push operation. Everything
// else (unknown types, ack fields, a push operation without items) is left to
// the database, which answers success:false. The body goes through the bounded
// parser (json_body.h); the push items of all push operations together are
// at most limits.push_max_items (PUSH_MAX_ITEMS), requiredLeases entries are
// names (input_limits.h).
broker::TransactionCommand parse_transaction_body(const std::string& body,
                                                  const config::LimitsConfig& limits =
                                                      config::Config::defaults().limits);

}  // namespace queen::http
