#pragma once
// Request bodies as JSON (docs/api-extensions.md, "Wire conventions"): a
// required body that is empty is 400 "Empty request body"; an optional body
// that is empty is {}; malformed JSON is 400 "Invalid JSON: <detail>".
//
// The one JSON parser for request bodies, bounded while it parses (nlohmann's
// SAX interface feeding a tree builder that checks every limit before it adds
// a value), so no hostile body can build a deep or huge tree first. Past a
// limit of config::LimitsConfig the answer is a 400 naming the limit and its
// variable (docs/limits.md):
//   "JSON nesting deeper than 64 (JSON_MAX_DEPTH)"
//   "JSON string longer than 8388608 bytes (JSON_MAX_STRING_BYTES)"   (keys too)
//   "JSON array with more than 50000 items (JSON_MAX_ARRAY_ITEMS)"
//   "JSON object with more than 10000 keys (JSON_MAX_OBJECT_KEYS)"
//   "JSON body with more than 1000000 values (JSON_MAX_VALUES)"
// and, whatever the limits:
//   "JSON object has a duplicate key \"<key>\""
//   "JSON strings must not contain \u0000 (NUL): PostgreSQL cannot store it"
//   "Invalid JSON: ..."  for syntax errors and ill-formed UTF-8
//   "Invalid JSON: number out of range: <number>"  (beyond a double, e.g. 1e999)
// The returned tree therefore nests at most json_max_depth levels: rendering
// it (dump) recurses no deeper than that.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"

namespace queen::http {

enum class BodyRule { Required, Optional };

// Throws HttpError(400) as described above. The default limits are the
// defaults of the configuration.
nlohmann::json parse_json_body(const std::string& body, BodyRule rule,
                               const config::LimitsConfig& limits = config::Config::defaults().limits);

// The member `name` of a parsed object, or null when it is absent or JSON null:
// null is exactly like absent (docs/api-extensions.md, "Wire conventions").
const nlohmann::json* present_field(const nlohmann::json& object, const char* name);

// An optional string member: absent, null or "" is none; another type is 400 "<name> must be a string".
std::optional<std::string> string_field(const nlohmann::json& object, const char* name);

// string_field, and what is there must pass the name rule (check_name, input_limits.h) under the label `name`.
std::optional<std::string> name_field(const nlohmann::json& object, const char* name,
                                      const config::LimitsConfig& limits);

// A string member, or none when it is absent, null or of another type ("" stays ""): the reading of the push,
// ack and configure bodies, which ignore an ill-typed optional field where string_field answers 400.
std::optional<std::string> lenient_string_field(const nlohmann::json& object, const char* name);
// lenient_string_field, and what is there must pass the name rule (check_name) under `label`.
std::optional<std::string> lenient_name_field(const nlohmann::json& object, const char* name, const char* label,
                                              const config::LimitsConfig& limits);

// `value` as compact JSON text; ill-formed UTF-8 in its strings is replaced, never thrown.
std::string dump_json(const nlohmann::json& value);

}  // namespace queen::http
