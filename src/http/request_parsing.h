#pragma once
// Validation of request bodies and query strings into broker commands.
// Pure functions: every 400 message of the queue, push, pop, ack, transaction,
// lease and maintenance routes is produced
// here (HttpError), so they are unit-tested without a server. Each takes the
// request limits (docs/limits.md; the routes pass config.limits, the default
// is the configuration's default): bodies go through the bounded parser of
// json_body.h, name-like fields through check_name (input_limits.h).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "broker/types.h"
#include "config/config.h"
#include "http/http_types.h"

namespace queen::http {

// POST /api/v1/push body {"items": [...]}: at most limits.push_max_items items.
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

struct AckRequest {
  std::vector<broker::AckItem> items;
  std::optional<std::string> consumer_group;  // absent / null / "" = queue mode
};
// POST /api/v1/ack (one item) and POST /api/v1/ack/batch.
AckRequest parse_ack_body(const std::string& body,
                          const config::LimitsConfig& limits = config::Config::defaults().limits);
AckRequest parse_ack_batch_body(const std::string& body,
                                const config::LimitsConfig& limits = config::Config::defaults().limits);

enum class PopForm { Wildcard, Specific, Filter };
// The three pop forms: path params `queue` / `partition`, then the query
// (batch, wait, timeout, consumerGroup, autoAck, subscription, namespace/task);
// the pop is for the caller's tenant (request.principal).
broker::PopCommand parse_pop_request(PopForm form, const Request& request, const config::PopConfig& pop,
                                     const config::LimitsConfig& limits = config::Config::defaults().limits);

// POST /api/v1/lease/:leaseId/extend body (optional) -> seconds (default 60).
int parse_lease_seconds(const std::string& body,
                        const config::LimitsConfig& limits = config::Config::defaults().limits);

struct ConfigureRequest {
  std::string queue;
  std::string namespace_name;
  std::string task;
  std::string options_json = "{}";
};
ConfigureRequest parse_configure_body(const std::string& body,
                                      const config::LimitsConfig& limits = config::Config::defaults().limits);

// POST /api/v1/system/maintenance(/pop) body {"enabled": bool}.
bool parse_enabled_body(const std::string& body,
                        const config::LimitsConfig& limits = config::Config::defaults().limits);

}  // namespace queen::http
