#include "http/transport/input_limits.h"

#include "http/transport/http_types.h"

namespace queen::http {

bool is_valid_utf8(std::string_view text) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* const end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    std::size_t extra;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return false;
    }
    if (static_cast<std::size_t>(end - p) <= extra) return false;
    if (p[1] < lo || p[1] > hi) return false;
    for (std::size_t i = 2; i <= extra; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
    }
    p += extra + 1;
  }
  return true;
}

std::size_t utf8_length(std::string_view text) noexcept {
  std::size_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

void check_name(std::string_view value, std::string_view label, const config::LimitsConfig& limits) {
  if (!is_valid_utf8(value)) throw HttpError(400, std::string(label) + " must be valid UTF-8");
  if (value.find('\0') != std::string_view::npos) {
    throw HttpError(400, std::string(label) + " must not contain NUL characters");
  }
  if (utf8_length(value) > static_cast<std::size_t>(limits.name_max_chars)) {
    throw HttpError(400, std::string(label) + " must be at most " + std::to_string(limits.name_max_chars) +
                             " characters (NAME_MAX_CHARS)");
  }
}

}  // namespace queen::http
