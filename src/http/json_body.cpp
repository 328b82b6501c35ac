#include "http/json_body.h"

#include <nlohmann/json.hpp>

#include "http/http_types.h"

namespace queen::http {

nlohmann::json parse_json_body(const std::string& body, BodyRule rule) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    if (rule == BodyRule::Required) throw HttpError(400, "Empty request body");
    return nlohmann::json::object();
  }
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw HttpError(400, std::string("Invalid JSON: ") + e.what());
  }
}

}  // namespace queen::http
