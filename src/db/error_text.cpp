#include "db/error_text.h"

#include <algorithm>

namespace queen::db {
namespace {

constexpr std::string_view kBlanks = " \t\r\n";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kBlanks);
  return text.substr(first, last - first + 1);
}

// libpq's severity tags (PQresultErrorMessage, any verbosity): an upper-case ASCII
// word, a colon and two spaces. Localized servers use other words; the shape
// is the same.
std::string_view without_severity(std::string_view line) {
  const auto colon = line.find(":  ");
  if (colon == std::string_view::npos || colon == 0 || colon > 16) return line;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = line[i];
    if (!(c >= 'A' && c <= 'Z')) return line;
  }
  return line.substr(colon + 3);
}

}  // namespace

std::string primary_message(std::string_view server_text) {
  // The first line that is not blank, left-trimmed only so that a bare
  // "ERROR:  " still shows its tag.
  std::string_view text = server_text.substr(std::min(server_text.size(), server_text.find_first_not_of(kBlanks)));
  const auto newline = text.find('\n');
  if (newline != std::string_view::npos) text = text.substr(0, newline);
  text = trim(without_severity(text));
  if (text.empty()) return "database error";
  return std::string(text);
}

}  // namespace queen::db
