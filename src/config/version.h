#pragma once
// The broker's release version (CMake's project version) and the
// oldest schema release it runs against (queen.schema_version(), checked at boot).
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace queen::config {

// "2.0.0": in the boot line, --version, GET /health and queen_build_info.
std::string_view broker_version();

// Raised only when the broker starts calling something an older schema lacks.
inline constexpr std::string_view kMinimumSchemaVersion = "2.0.0";

// "major.minor.patch" (digits only) or nullopt.
std::optional<std::array<int, 3>> parse_version(std::string_view text);

// True when `deployed` parses and is at least `minimum` (which must parse).
bool version_at_least(std::string_view deployed, std::string_view minimum);

}  // namespace queen::config
