#include "util/percent_decode.h"

#include <gtest/gtest.h>

using namespace queen::util;

TEST(PercentDecode, DecodesEscapesInEitherCase) {
  EXPECT_EQ(percent_decode("a%20b%2fc%2Fd", PlusMeans::Plus), "a b/c/d");
  EXPECT_EQ(percent_decode("%E2%82%AC", PlusMeans::Plus), "\xE2\x82\xAC");
}

TEST(PercentDecode, PlusIsSpaceOnlyInForms) {
  EXPECT_EQ(percent_decode("a+b", PlusMeans::Plus), "a+b");
  EXPECT_EQ(percent_decode("a+b", PlusMeans::Space), "a b");
  EXPECT_EQ(percent_decode("a%2Bb", PlusMeans::Space), "a+b");
}

TEST(PercentDecode, MalformedEscapesStayLiteral) {
  EXPECT_EQ(percent_decode("100%", PlusMeans::Plus), "100%");
  EXPECT_EQ(percent_decode("%zz%4", PlusMeans::Plus), "%zz%4");
  EXPECT_EQ(percent_decode("%4g", PlusMeans::Plus), "%4g");
}
