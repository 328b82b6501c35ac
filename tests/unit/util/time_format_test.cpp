#include "util/time_format.h"

#include <gtest/gtest.h>

using namespace queen::util;

TEST(TimeFormat, MicrosecondsKeepSixDigits) {
  // 2025-03-04T09:15:26.123456Z
  EXPECT_EQ(format_iso8601_micros(1741079726123456LL), "2025-03-04T09:15:26.123456Z");
  EXPECT_EQ(format_iso8601_micros(1741079726000001LL), "2025-03-04T09:15:26.000001Z");
}

TEST(TimeFormat, MillisecondsTruncate) {
  EXPECT_EQ(format_iso8601_millis(1741079726123999LL), "2025-03-04T09:15:26.123Z");
}

TEST(TimeFormat, EpochAndLeapDay) {
  EXPECT_EQ(format_iso8601_micros(0), "1970-01-01T00:00:00.000000Z");
  // 2024-02-29T23:59:59.999999Z
  EXPECT_EQ(format_iso8601_micros(1709251199999999LL), "2024-02-29T23:59:59.999999Z");
  // 2000-03-01T00:00:00Z (century leap year boundary)
  EXPECT_EQ(format_iso8601_millis(951868800000000LL), "2000-03-01T00:00:00.000Z");
}

TEST(TimeFormat, BeforeEpochBorrowsCorrectly) {
  EXPECT_EQ(format_iso8601_micros(-1), "1969-12-31T23:59:59.999999Z");
}
