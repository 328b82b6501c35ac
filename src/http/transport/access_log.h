#pragma once
// The access log (ACCESS_LOG, docs/operations-logs.md) and the request id: one line per answered
// request, written to the logger "access" as a JSON object, so a log pipeline reads its fields
// whatever LOG_FORMAT is (with LOG_FORMAT=json they become fields of the line itself).
#include <cstdint>
#include <string>
#include <string_view>

namespace queen::http {

// Longest X-Request-Id taken as it is.
inline constexpr std::size_t kMaxRequestIdLength = 128;

// The X-Request-Id a client sent, when it is 1..128 characters of [A-Za-z0-9._:-] (anything else,
// or nothing, gets a fresh UUIDv7: a log line never carries bytes a client chose freely).
std::string request_id_of(std::string_view header);

struct AccessEntry {
  std::string method;
  std::string route;  // the route template ("unmatched" when none)
  std::string path;   // without the query string
  int status = 0;
  double duration_seconds = 0;
  std::string tenant;
  std::uint64_t bytes = 0;  // of the answer's body
  std::string request_id;
};

// The entry as one JSON object (no newline).
std::string access_line(const AccessEntry& entry);

}  // namespace queen::http
