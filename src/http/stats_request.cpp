#include "http/stats_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "http/input_limits.h"
#include "http/query.h"
#include "http/routes.h"
#include "util/iso8601.h"

namespace queen::http {
namespace {

// from/to: the procedure reads fromMs/toMs.
void add_time_bound(nlohmann::json& out, const QueryParams& query, const std::string& name) {
  const auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return;
  const std::optional<std::int64_t> ms = util::parse_epoch_or_iso8601_millis(it->second);
  if (!ms) throw HttpError(400, name + " must be an ISO-8601 timestamp or epoch milliseconds");
  out[name + "Ms"] = *ms;
}

}  // namespace

std::string stats_params_json(const Request& request, const StatsParams& params, const config::LimitsConfig& limits) {
  nlohmann::json out = nlohmann::json::object();
  const QueryParams& query = request.query;
  for (const std::string& name : params.accepted) {
    if (name == "from" || name == "to") {
      add_time_bound(out, query, name);
    } else if (const std::optional<std::string> value = query_name(query, name, limits)) {
      out[name] = *value;
    }
  }
  if (params.default_limit > 0) {
    out["limit"] = std::clamp<std::int64_t>(query_int(query, "limit", params.default_limit), 1, kMaxStatsPageSize);
    out["offset"] =
        std::clamp<std::int64_t>(query_int(query, "offset", 0), 0, std::numeric_limits<std::int32_t>::max());
  }
  if (params.queue_in_path) {
    const std::string& queue = request.param("queue");
    check_name(queue, "queue", limits);
    out["queue"] = queue;
  }
  return out.dump();
}

StatsParams stats_params_of(const db::View& view) {
  StatsParams params;
  params.accepted = view.parameters;
  params.default_limit = view.page_size;
  params.queue_in_path = view.queue_in_path;
  params.level = view.access == db::ViewAccess::Operator ? auth::AccessLevel::Operator : auth::AccessLevel::ReadOnly;
  return params;
}

void add_stats_view_route(Router& router, const db::View& view, broker::Statistics* statistics,
                          const config::LimitsConfig& limits) {
  const StatsParams params = stats_params_of(view);
  router.add("GET", view.path, params.level, [&view, params, statistics, &limits](const Request& request) {
    if (statistics == nullptr) return Response::error(503, "statistics unavailable");
    const std::string params_json = stats_params_json(request, params, limits);
    std::optional<std::string> body = statistics->view(view, request.principal.tenant, params_json);
    if (!body) return Response::error(404, "Queue not found");
    return Response::json(200, std::move(*body));
  });
}

void register_view_routes(Router& router, const RouteContext& context) {
  for (const db::View& view : db::views()) {
    add_stats_view_route(router, view, context.statistics, context.config.limits);
  }
}

}  // namespace queen::http
