#pragma once
// ISO-8601 UTC timestamps as the wire format spells them (docs/api-extensions.md,
// "Wire conventions"): pop messages use microseconds, admin/lease routes
// milliseconds, both with Z.
#include <cstdint>
#include <string>

namespace queen::util {

// 2025-03-04T09:15:26.123456Z from microseconds since the Unix epoch.
std::string format_iso8601_micros(std::int64_t epoch_us);

// 2025-03-04T09:15:26.123Z (truncated, not rounded, like the database does).
std::string format_iso8601_millis(std::int64_t epoch_us);

}  // namespace queen::util
