#include "util/iso8601.h"

namespace queen::util {
namespace {

// Reads exactly `count` decimal digits at `pos`, advancing it.
bool read_digits(std::string_view text, std::size_t& pos, int count, int& value) {
  if (pos + static_cast<std::size_t>(count) > text.size()) return false;
  int result = 0;
  for (int i = 0; i < count; ++i) {
    const char c = text[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') return false;
    result = result * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(count);
  value = result;
  return true;
}

bool is_leap_year(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// Days from 1970-01-01 to year-month-day in the proleptic Gregorian calendar
// (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(int year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int era = (year >= 0 ? year : year - 399) / 400;
  const int year_of_era = year - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return static_cast<std::int64_t>(era) * 146097 + day_of_era - 719468;
}

// Parses the zone designator at `pos` into an offset east of UTC in minutes.
bool read_offset(std::string_view text, std::size_t& pos, int& offset_minutes) {
  if (pos == text.size()) {
    offset_minutes = 0;
    return true;
  }
  const char sign = text[pos];
  if (sign == 'Z' || sign == 'z') {
    ++pos;
    offset_minutes = 0;
    return true;
  }
  if (sign != '+' && sign != '-') return false;
  ++pos;
  int hours = 0;
  int minutes = 0;
  if (!read_digits(text, pos, 2, hours)) return false;
  if (pos < text.size()) {
    if (text[pos] == ':') ++pos;
    if (!read_digits(text, pos, 2, minutes)) return false;
  }
  if (hours > 23 || minutes > 59) return false;
  offset_minutes = (hours * 60 + minutes) * (sign == '-' ? -1 : 1);
  return true;
}

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::optional<std::int64_t> parse_iso8601_millis(std::string_view text) {
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0;
  if (!read_digits(text, pos, 4, year) || pos >= text.size() || text[pos++] != '-' ||
      !read_digits(text, pos, 2, month) || pos >= text.size() || text[pos++] != '-' ||
      !read_digits(text, pos, 2, day)) {
    return std::nullopt;
  }
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;

  int hour = 0, minute = 0, second = 0, millis = 0, offset_minutes = 0;
  if (pos < text.size()) {
    const char separator = text[pos++];
    if (separator != 'T' && separator != 't' && separator != ' ') return std::nullopt;
    if (!read_digits(text, pos, 2, hour) || pos >= text.size() || text[pos++] != ':' ||
        !read_digits(text, pos, 2, minute)) {
      return std::nullopt;
    }
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!read_digits(text, pos, 2, second)) return std::nullopt;
      if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
        ++pos;
        const std::size_t first_digit = pos;
        int scale = 100;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
          if (scale > 0) millis += (text[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (pos == first_digit) return std::nullopt;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    if (!read_offset(text, pos, offset_minutes)) return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;

  const std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
                               static_cast<std::int64_t>(offset_minutes) * 60;
  const std::int64_t epoch_ms = seconds * 1000 + millis;
  if (epoch_ms < 0 || epoch_ms > kMaxEpochMillis) return std::nullopt;
  return epoch_ms;
}

std::optional<std::int64_t> parse_epoch_or_iso8601_millis(std::string_view text) {
  text = trim_blanks(text);
  if (text.empty()) return std::nullopt;
  bool all_digits = true;
  for (const char c : text) all_digits = all_digits && c >= '0' && c <= '9';
  if (!all_digits) return parse_iso8601_millis(text);
  // More digits than the largest accepted value has cannot be in range.
  if (text.size() > 15) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : text) value = value * 10 + (c - '0');
  if (value > kMaxEpochMillis) return std::nullopt;
  return value;
}

}  // namespace queen::util
