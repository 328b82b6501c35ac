#pragma once
// POST /api/v1/push (docs/http-api.md): the body into broker push items, and the answer. Pure: every 400 of a
// push item is produced here (HttpError), also for the pushes of a transaction and of a stream cycle. Bodies go
// through the bounded parser of json_body.h, name-like fields through check_name (input_limits.h); the default
// limits are the configuration's.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "broker/types.h"
#include "config/config.h"

namespace queen::http {

// The body {"items": [...]}: at most limits.push_max_items items.
std::vector<broker::PushItem> parse_push_body(const std::string& body,
                                              const config::LimitsConfig& limits = config::Config::defaults().limits);
// One push item; its errors do not name it (parse_push_items does).
broker::PushItem parse_push_item(const nlohmann::json& item,
                                 const config::LimitsConfig& limits = config::Config::defaults().limits);
// The items of a push (/push, a transaction's push operation, a stream cycle's
// push_items): a refused item's 400 names its 0-based index as the procedures
// do, "push item 2: TraceId must be a valid UUID".
std::vector<broker::PushItem> parse_push_items(const nlohmann::json& items, const config::LimitsConfig& limits);
// 400 "push with more than N items (PUSH_MAX_ITEMS)" past limits.push_max_items.
void check_push_item_count(std::size_t items, const config::LimitsConfig& limits);

// The answer, built as text: a bare array; every item carries status plus both key casings.
std::string render_push_results(const std::vector<broker::PushItemResult>& results);

}  // namespace queen::http
