#pragma once
// JSON from outside the broker (token segments, JWKS documents) parsed with a
// bound on nesting, so no input can make the parse or the tree deep.
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace queen::auth {

// nullopt for invalid JSON (including bad UTF-8) or nesting deeper than max_depth.
std::optional<nlohmann::json> parse_bounded_json(std::string_view text, int max_depth);

}  // namespace queen::auth
