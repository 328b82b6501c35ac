#pragma once
// The status, resources and analytics routes (docs/operations-stats.md): the
// query parameters each one reads, turned into the JSON object its procedure
// takes. Pure.
#include <string>
#include <vector>

#include "auth/principal.h"
#include "config/config.h"
#include "db/catalogue.h"
#include "http/transport/http_types.h"

namespace queen::http {

// Pages larger than this are cut to it: a page is rendered in memory.
inline constexpr int kMaxStatsPageSize = 1000;

// What a view route reads from its query string (and path).
struct StatsParams {
  std::vector<std::string> accepted;  // from, to, queue, namespace, task, search, hostname, workerId, interval
  int default_limit = 0;                        // > 0: limit/offset paging with this default
  bool queue_in_path = false;                   // :queue names the queue; unknown -> 404 "Queue not found"
  // Operator for the cell-wide views (every broker's figures, the database's): docs/auth.md.
  auth::AccessLevel level = auth::AccessLevel::ReadOnly;
};

// The procedure's parameters: from/to (ISO-8601 or epoch ms; 400 otherwise)
// become fromMs/toMs; names are checked like every name (query_name); empty
// values are absent; limit is clamped to 1..kMaxStatsPageSize, offset to >= 0.
std::string stats_params_json(const Request& request, const StatsParams& params, const config::LimitsConfig& limits);

// What a view route reads, as its catalogue line declares it.
StatsParams stats_params_of(const db::View& view);

}  // namespace queen::http
