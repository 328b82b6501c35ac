#include "http/transport/access_log.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "http/transport/json_body.h"

#include "util/uuid.h"

namespace queen::http {
namespace {

bool request_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == ':' || c == '-';
}

}  // namespace

std::string request_id_of(std::string_view header) {
  bool usable = !header.empty() && header.size() <= kMaxRequestIdLength;
  for (std::size_t i = 0; usable && i < header.size(); ++i) usable = request_id_char(header[i]);
  return usable ? std::string(header) : util::new_uuid_v7();
}

std::string access_line(const AccessEntry& e) {
  const nlohmann::json line = {
      {"event", "access"},
      {"method", e.method},
      {"route", e.route},
      {"path", e.path},
      {"status", e.status},
      {"durationMs", std::round(e.duration_seconds * 1e6) / 1e3},
      {"tenant", e.tenant},
      {"bytes", e.bytes},
      {"requestId", e.request_id},
  };
  // Replace: a path is percent-decoded client text and may hold bytes that are not UTF-8.
  return dump_json(line);
}

}  // namespace queen::http
