#pragma once
// Name-like request values (queue, partition, consumer group, transaction and
// lease ids, namespace, task, KV keys ...), wherever they come from: a JSON
// body, a path segment or a query string (both percent-decoded, so any byte
// can arrive). Pure; the bounds come from config::LimitsConfig
// (docs/limits.md).
#include <cstddef>
#include <string>
#include <string_view>

#include "config/config.h"

namespace queen::http {

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

// Characters as PostgreSQL's length() counts them in a UTF-8 database:
// every byte that is not a continuation byte starts one.
std::size_t utf8_length(std::string_view text) noexcept;

// 400 unless `value` is valid UTF-8, has no NUL (libpq would silently cut the
// value there: "orders\0x" would name "orders") and has at most
// limits.name_max_chars characters:
//   "<label> must be valid UTF-8"
//   "<label> must not contain NUL characters"
//   "<label> must be at most 255 characters (NAME_MAX_CHARS)"
void check_name(std::string_view value, std::string_view label, const config::LimitsConfig& limits);

}  // namespace queen::http
