#pragma once
// Minimal JSON text building for hot paths (push item encoding, pop and push
// responses) where payloads are already JSON text and must be spliced in
// verbatim rather than re-parsed into a DOM.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace queen::util {

// Appends `text` as a quoted JSON string, escaping quotes, backslashes and
// control characters. Bytes >= 0x80 pass through (input is UTF-8).
void append_json_string(std::string& out, std::string_view text);

// Appends a quoted string, or `null` when absent.
void append_json_string_or_null(std::string& out, const std::optional<std::string>& text);

// Appends `"key":` (key is escaped).
void append_json_key(std::string& out, std::string_view key);

// Appends `,"key":"text"`: a string member after an earlier one.
void append_json_member(std::string& out, std::string_view key, std::string_view text);
// The same when `text` is present; nothing when it is not.
void append_json_member_if_set(std::string& out, std::string_view key, const std::optional<std::string>& text);

// Appends `true` or `false`.
void append_json_bool(std::string& out, bool value);

}  // namespace queen::util
