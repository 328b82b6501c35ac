#include "util/time_format.h"

#include <cstdio>

namespace queen::util {
namespace {

struct CivilTime {
  std::int64_t year;
  unsigned month, day, hour, minute, second;
  std::int64_t micros;
};

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// algorithm); avoids gmtime_r so pre-1970 and far-future values work too.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

CivilTime to_civil(std::int64_t epoch_us) {
  std::int64_t seconds = epoch_us / 1000000;
  std::int64_t micros = epoch_us % 1000000;
  if (micros < 0) {
    micros += 1000000;
    --seconds;
  }
  std::int64_t days = seconds / 86400;
  std::int64_t second_of_day = seconds % 86400;
  if (second_of_day < 0) {
    second_of_day += 86400;
    --days;
  }
  CivilTime t{};
  civil_from_days(days, t.year, t.month, t.day);
  t.hour = static_cast<unsigned>(second_of_day / 3600);
  t.minute = static_cast<unsigned>((second_of_day % 3600) / 60);
  t.second = static_cast<unsigned>(second_of_day % 60);
  t.micros = micros;
  return t;
}

}  // namespace

std::string format_iso8601_micros(std::int64_t epoch_us) {
  const CivilTime t = to_civil(epoch_us);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%06lldZ",
                static_cast<long long>(t.year), t.month, t.day, t.hour, t.minute, t.second,
                static_cast<long long>(t.micros));
  return buf;
}

std::string format_iso8601_millis(std::int64_t epoch_us) {
  const CivilTime t = to_civil(epoch_us);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%03lldZ",
                static_cast<long long>(t.year), t.month, t.day, t.hour, t.minute, t.second,
                static_cast<long long>(t.micros / 1000));
  return buf;
}

}  // namespace queen::util
