#include "http/api/lease_request.h"

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/json_body.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {

using nlohmann::json;
using util::append_json_bool;
using util::append_json_key;
using util::append_json_string;
using util::append_json_string_or_null;

int parse_lease_seconds(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Optional, limits);
  if (!doc.is_object()) throw HttpError(400, "Request body must be a JSON object");
  const json* seconds = present_field(doc, "seconds");
  if (!seconds) return 60;
  if (!seconds->is_number_integer() || seconds->get<std::int64_t>() < 1 ||
      seconds->get<std::int64_t>() > 86400 * 365) {
    throw HttpError(400, "seconds must be a positive integer");
  }
  return seconds->get<int>();
}

std::string render_lease_extension(const std::string& lease_id, const broker::LeaseExtension& extension) {
  std::optional<std::string> expires;
  if (extension.success && extension.expires_at_us) expires = util::format_iso8601_millis(*extension.expires_at_us);
  std::string out = "{";
  append_json_key(out, "leaseId");
  append_json_string(out, lease_id);
  out += ",\"success\":";
  append_json_bool(out, extension.success);
  out += ",\"newExpiresAt\":";
  append_json_string_or_null(out, expires);
  out += ",\"expiresAt\":";
  append_json_string_or_null(out, expires);
  out += ",\"error\":";
  append_json_string_or_null(out, extension.success ? std::nullopt : extension.error);
  out += '}';
  return out;
}

}  // namespace queen::http
