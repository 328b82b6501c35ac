#include "util/iso8601.h"

#include <gtest/gtest.h>

using queen::util::kMaxEpochMillis;
using queen::util::parse_epoch_or_iso8601_millis;
using queen::util::parse_iso8601_millis;

TEST(Iso8601, ParsesUtcWithMilliseconds) {
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T09:15:26.123Z"), 1741079726123);
  EXPECT_EQ(parse_iso8601_millis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_iso8601_millis("1970-01-01T00:00:00.001Z"), 1);
}

TEST(Iso8601, TruncatesLongFractionsAndPadsShortOnes) {
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T09:15:26.123999Z"), 1741079726123);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T09:15:26.5Z"), 1741079726500);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T09:15:26,25Z"), 1741079726250);
}

TEST(Iso8601, AppliesOffsetsInEverySpelling) {
  const auto utc = parse_iso8601_millis("2025-03-04T09:15:26Z");
  ASSERT_TRUE(utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T11:15:26+02:00"), utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T11:15:26+0200"), utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T11:15:26+02"), utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T04:45:26-04:30"), utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04t09:15:26z"), utc);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04 09:15:26"), utc);  // no offset: UTC
}

TEST(Iso8601, AcceptsDateOnlyAndMinutePrecision) {
  EXPECT_EQ(parse_iso8601_millis("2025-03-04"), 1741046400000);
  EXPECT_EQ(parse_iso8601_millis("2025-03-04T00:01Z"), 1741046460000);
}

TEST(Iso8601, KnowsLeapYears) {
  EXPECT_TRUE(parse_iso8601_millis("2024-02-29T00:00:00Z"));
  EXPECT_TRUE(parse_iso8601_millis("2000-02-29T00:00:00Z"));
  EXPECT_FALSE(parse_iso8601_millis("2025-02-29T00:00:00Z"));
  EXPECT_FALSE(parse_iso8601_millis("2100-02-29T00:00:00Z"));
  EXPECT_EQ(parse_iso8601_millis("2024-03-01T00:00:00Z").value() - parse_iso8601_millis("2024-02-28T00:00:00Z").value(),
            2 * 86400000LL);
}

TEST(Iso8601, RejectsMalformedOrOutOfRangeText) {
  for (const char* bad : {"", "tomorrow", "2025-3-4", "2025-13-01", "2025-00-10", "2025-04-31", "2025-03-04T24:00:00Z",
                          "2025-03-04T10:60:00Z", "2025-03-04T10:00:61Z", "2025-03-04T10:00:00.Z",
                          "2025-03-04T10:00:00Zjunk", "2025-03-04T10:00:00+25:00", "2025-03-04T10", "2025-03-04X10:00",
                          "1969-12-31T23:59:59Z", "1970-01-01T00:30:00+01:00", " 2025-03-04"}) {
    EXPECT_FALSE(parse_iso8601_millis(bad)) << bad;
  }
}

TEST(Iso8601, EpochDigitsOrIsoText) {
  EXPECT_EQ(parse_epoch_or_iso8601_millis("1741079726123"), 1741079726123);
  EXPECT_EQ(parse_epoch_or_iso8601_millis("  1741079726123 "), 1741079726123);
  EXPECT_EQ(parse_epoch_or_iso8601_millis("0"), 0);
  EXPECT_EQ(parse_epoch_or_iso8601_millis("2025-03-04T09:15:26.123Z"), 1741079726123);
  EXPECT_EQ(parse_epoch_or_iso8601_millis(std::to_string(kMaxEpochMillis)), kMaxEpochMillis);
  EXPECT_FALSE(parse_epoch_or_iso8601_millis(std::to_string(kMaxEpochMillis + 1)));
  EXPECT_FALSE(parse_epoch_or_iso8601_millis("99999999999999999999999"));
  EXPECT_FALSE(parse_epoch_or_iso8601_millis("-5"));
  EXPECT_FALSE(parse_epoch_or_iso8601_millis("12.5"));
  EXPECT_FALSE(parse_epoch_or_iso8601_millis("   "));
}
