#pragma once
// UUID helpers: minting time-ordered UUIDv7 ids and validating UUID text.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace queen::util {

using UuidBytes = std::array<std::uint8_t, 16>;

// Lays out a UUIDv7 (RFC 9562): 48-bit big-endian Unix milliseconds, version
// nibble 7, 12 bits of rand_a, variant 0b10, 62 bits of rand_b. Pure, so the
// layout is unit-testable; `random` supplies the 74 random bits (extra bits are
// masked away).
UuidBytes make_uuid_v7(std::uint64_t unix_ms, const std::array<std::uint8_t, 10>& random) noexcept;

// Lowercase canonical 8-4-4-4-12 text.
std::string format_uuid(const UuidBytes& bytes);

// A fresh UUIDv7 from the system clock and a per-thread random generator.
std::string new_uuid_v7();

// True for canonical 36-character UUID text (any version, either case).
bool is_uuid(std::string_view text) noexcept;

// UUID text (is_uuid) in its canonical lowercase form.
std::string lowercase_uuid(std::string_view text);

}  // namespace queen::util
