#pragma once
// Request bodies as JSON (http-api §0.3): a required body that is empty is
// 400 "Empty request body"; an optional body that is empty is {}; malformed
// JSON is 400 "Invalid JSON: <detail>".
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace queen::http {

enum class BodyRule { Required, Optional };

// Throws HttpError(400) as described above.
nlohmann::json parse_json_body(const std::string& body, BodyRule rule);

}  // namespace queen::http
