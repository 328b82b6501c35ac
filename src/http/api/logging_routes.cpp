// GET/POST /api/v1/system/log-level (docs/operations-logs.md): the log level and the access log of
// this broker, changed at run time without a restart (each broker of a cell is set on its own).
#include <nlohmann/json.hpp>

#include <spdlog/spdlog.h>

#include "http/api/routes.h"
#include "http/transport/json_body.h"
#include "util/log_format.h"

namespace queen::http {
namespace {

Response log_settings() {
  const nlohmann::json body = {{"level", util::log_level()}, {"accessLog", util::access_log_on()}};
  return Response::json(200, body.dump());
}

}  // namespace

void register_logging_routes(Router& router, const RouteContext& context) {
  const config::LimitsConfig& limits = context.config.limits;
  router.add("GET", "/api/v1/system/log-level", auth::AccessLevel::Operator,
             [](const Request&) { return log_settings(); });
  router.add("POST", "/api/v1/system/log-level", auth::AccessLevel::Operator, [&limits](const Request& request) {
    const nlohmann::json body = parse_json_body(request.body, BodyRule::Required, limits);
    if (!body.is_object()) throw HttpError(400, "The body must be a JSON object");
    const nlohmann::json* level = present_field(body, "level");
    const nlohmann::json* access = present_field(body, "accessLog");
    if (level == nullptr && access == nullptr) throw HttpError(400, "Give level, accessLog or both");
    if (level != nullptr && !level->is_string()) throw HttpError(400, "level must be a string");
    if (access != nullptr && !access->is_boolean()) throw HttpError(400, "accessLog must be a boolean");
    // Checked before anything changes: a refused body changes nothing.
    static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error"};
    if (level != nullptr && std::none_of(std::begin(kLevels), std::end(kLevels),
                                         [&](const char* known) { return *level == known; })) {
      throw HttpError(400, "level must be one of trace, debug, info, warn, error");
    }
    if (level != nullptr) util::set_log_level(level->get<std::string>());
    if (access != nullptr) util::set_access_log(access->get<bool>());
    spdlog::warn("logging: level {}, access log {} (POST /api/v1/system/log-level)", util::log_level(),
                 util::access_log_on() ? "on" : "off");
    return log_settings();
  });
}

}  // namespace queen::http
