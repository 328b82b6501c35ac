#include "util/assert.h"

#include <gtest/gtest.h>

TEST(QueenAssert, ATrueConditionCostsNothingAndContinues) {
  int evaluated = 0;
  QUEEN_ASSERT(++evaluated == 1, "evaluated once");
  EXPECT_EQ(evaluated, 1);
}

TEST(QueenAssertDeathTest, AFalseConditionStopsTheProcessWithThePlaceAndTheReason) {
  // Checked in every build type: this test runs in the release build too.
  EXPECT_DEATH(QUEEN_ASSERT(1 + 1 == 3, "arithmetic holds"),
               "assertion failed at .*assert_test.cpp:[0-9]+: arithmetic holds \\(1 \\+ 1 == 3\\)");
}
