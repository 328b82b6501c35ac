#include "util/uuid.h"

#include <chrono>
#include <random>

namespace queen::util {

UuidBytes make_uuid_v7(std::uint64_t unix_ms, const std::array<std::uint8_t, 10>& random) noexcept {
  UuidBytes b{};
  for (int i = 0; i < 6; ++i) b[i] = static_cast<std::uint8_t>(unix_ms >> (8 * (5 - i)));
  for (int i = 0; i < 10; ++i) b[6 + i] = random[i];
  b[6] = static_cast<std::uint8_t>(0x70 | (b[6] & 0x0F));  // version 7
  b[8] = static_cast<std::uint8_t>(0x80 | (b[8] & 0x3F));  // variant 0b10
  return b;
}

std::string format_uuid(const UuidBytes& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0x0F]);
  }
  return out;
}

std::string new_uuid_v7() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto unix_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  std::array<std::uint8_t, 10> random{};
  const std::uint64_t r1 = generator();
  const std::uint64_t r2 = generator();
  for (int i = 0; i < 8; ++i) random[i] = static_cast<std::uint8_t>(r1 >> (8 * i));
  random[8] = static_cast<std::uint8_t>(r2);
  random[9] = static_cast<std::uint8_t>(r2 >> 8);
  return format_uuid(make_uuid_v7(unix_ms, random));
}

bool is_uuid(std::string_view text) noexcept {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

std::string lowercase_uuid(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace queen::util
