#pragma once
// JSON from outside the broker (token segments, JWKS documents) parsed with a
// bound on nesting, so no input can make the parse or the tree deep, and
// without repeated member names: {"role":"read-only","role":"admin"} would
// otherwise mean whichever one the parser keeps (request bodies refuse them too).
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace queen::auth {

enum class JsonRefusal { Invalid, TooDeep, DuplicateKey };

struct BoundedJson {
  std::optional<nlohmann::json> value;  // set when the text is acceptable
  JsonRefusal refusal = JsonRefusal::Invalid;
  std::string duplicate_key;            // for DuplicateKey: the repeated name (at most 64 bytes of it)
};

// Refuses invalid JSON (including bad UTF-8), nesting deeper than max_depth,
// and an object that names a member twice.
BoundedJson parse_bounded_json(std::string_view text, int max_depth);

}  // namespace queen::auth
