#include "http/api/queue_request.h"

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"

namespace queen::http {

using nlohmann::json;

ConfigureRequest parse_configure_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "queue is required");
  ConfigureRequest out;
  const json* queue = present_field(doc, "queue");
  if (!queue || !queue->is_string() || queue->get_ref<const std::string&>().empty()) {
    throw HttpError(400, "queue is required");
  }
  out.queue = queue->get<std::string>();
  check_name(out.queue, "queue", limits);
  out.namespace_name = lenient_name_field(doc, "namespace", "namespace", limits).value_or("");
  out.task = lenient_name_field(doc, "task", "task", limits).value_or("");
  if (const json* options = present_field(doc, "options")) {
    if (!options->is_object()) throw HttpError(400, "options must be an object");
    out.options_json = dump_json(*options);
  }
  return out;
}

}  // namespace queen::http
