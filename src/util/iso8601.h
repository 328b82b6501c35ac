#pragma once
// Parsing of the instants clients send (push items' `deliverAt`): ISO-8601
// timestamps or Unix epoch milliseconds. Pure, no clock, no locale.
#include <cstdint>
#include <optional>
#include <string_view>

namespace queen::util {

// Latest instant accepted: 9999-12-31T23:59:59.999Z (PostgreSQL's timestamptz
// goes further, but no client means a later date and it bounds the arithmetic).
inline constexpr std::int64_t kMaxEpochMillis = 253402300799999;

// An ISO-8601 timestamp as Unix epoch milliseconds:
//   YYYY-MM-DD[(T|t| )hh:mm[:ss[(.|,)fraction]][Z|z|+hh[:mm]|-hh[:mm]|+hhmm|-hhmm]]
// The fraction is truncated to milliseconds. A time without an offset is
// taken as UTC (a broker has no business guessing a client's zone). Years
// 1970..9999 only. nullopt for anything else (out-of-range fields, Feb 30,
// trailing characters).
std::optional<std::int64_t> parse_iso8601_millis(std::string_view text);

// `deliverAt` given as a string: a run of digits is epoch milliseconds,
// anything else must be ISO-8601. Surrounding blanks are ignored.
std::optional<std::int64_t> parse_epoch_or_iso8601_millis(std::string_view text);

}  // namespace queen::util
