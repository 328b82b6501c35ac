#include "config/version.h"

namespace queen::config {

std::optional<std::array<int, 3>> parse_version(std::string_view text) {
  std::array<int, 3> parts{};
  std::size_t at = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t begin = at;
    int value = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && at - begin < 6) {
      value = value * 10 + (text[at] - '0');
      ++at;
    }
    if (at == begin) return std::nullopt;
    parts[i] = value;
    if (i + 1 < parts.size()) {
      if (at >= text.size() || text[at] != '.') return std::nullopt;
      ++at;
    }
  }
  if (at != text.size()) return std::nullopt;
  return parts;
}

bool version_at_least(std::string_view deployed, std::string_view minimum) {
  const auto have = parse_version(deployed);
  const auto need = parse_version(minimum);
  return have && need && *have >= *need;
}

}  // namespace queen::config
