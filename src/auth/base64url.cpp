#include "auth/base64url.h"

#include <array>
#include <cstdint>

namespace queen::auth {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::uint8_t kInvalid = 0xff;

constexpr std::array<std::uint8_t, 256> make_decode_table() {
  std::array<std::uint8_t, 256> table{};
  for (auto& entry : table) entry = kInvalid;
  for (std::uint8_t i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}

constexpr std::array<std::uint8_t, 256> kDecode = make_decode_table();

}  // namespace

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char c : text) {
    const std::uint8_t value = kDecode[static_cast<unsigned char>(c)];
    if (value == kInvalid) return std::nullopt;
    bits = (bits << 6) | value;
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out.push_back(static_cast<char>((bits >> bit_count) & 0xff));
    }
  }
  // Leftover bits (2 or 4) must be zero, or two texts would decode alike.
  if (bit_count > 0 && (bits & ((1u << bit_count) - 1)) != 0) return std::nullopt;
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char c : bytes) {
    bits = (bits << 8) | static_cast<unsigned char>(c);
    bit_count += 8;
    while (bit_count >= 6) {
      bit_count -= 6;
      out.push_back(kAlphabet[(bits >> bit_count) & 0x3f]);
    }
  }
  if (bit_count > 0) out.push_back(kAlphabet[(bits << (6 - bit_count)) & 0x3f]);
  return out;
}

}  // namespace queen::auth
