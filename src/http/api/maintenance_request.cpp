#include "http/api/maintenance_request.h"

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/json_body.h"

namespace queen::http {

using nlohmann::json;

bool parse_enabled_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  const json* enabled = doc.is_object() ? present_field(doc, "enabled") : nullptr;
  if (!enabled || !enabled->is_boolean()) throw HttpError(400, "enabled (boolean) is required");
  return enabled->get<bool>();
}

}  // namespace queen::http
