#include "mesh/backoff.h"

#include <gtest/gtest.h>

using queen::mesh::reconnect_delay;
using ms = std::chrono::milliseconds;

TEST(ReconnectDelay, FirstRetryIsJitteredBetweenMinAndTwiceMin) {
  EXPECT_EQ(reconnect_delay(0, ms(100), ms(5000), 0.0), ms(100));
  EXPECT_EQ(reconnect_delay(0, ms(100), ms(5000), 0.5), ms(150));
  EXPECT_EQ(reconnect_delay(0, ms(100), ms(5000), 1.0), ms(200));
}

TEST(ReconnectDelay, CeilingDoublesPerAttemptAndJitterSpansItsUpperHalf) {
  // attempt 3: ceiling 2 * 100 * 8 = 1600 -> [800, 1600]
  EXPECT_EQ(reconnect_delay(3, ms(100), ms(5000), 0.0), ms(800));
  EXPECT_EQ(reconnect_delay(3, ms(100), ms(5000), 0.5), ms(1200));
  EXPECT_EQ(reconnect_delay(3, ms(100), ms(5000), 1.0), ms(1600));
  EXPECT_LT(reconnect_delay(2, ms(100), ms(5000), 1.0), reconnect_delay(3, ms(100), ms(5000), 1.0));
}

TEST(ReconnectDelay, CappedAtTheMaximumForAnyAttempt) {
  for (unsigned attempt : {5u, 6u, 10u, 63u, 64u, 1000u, ~0u}) {
    for (double jitter : {0.0, 0.3, 1.0}) {
      const auto d = reconnect_delay(attempt, ms(100), ms(5000), jitter);
      EXPECT_GE(d, ms(2500)) << attempt;
      EXPECT_LE(d, ms(5000)) << attempt;
    }
  }
}

TEST(ReconnectDelay, DegenerateInputsStayInRange) {
  EXPECT_EQ(reconnect_delay(5, ms(200), ms(100), 1.0), ms(200)) << "max below min behaves as max == min";
  EXPECT_EQ(reconnect_delay(5, ms(200), ms(100), 0.0), ms(200));
  EXPECT_EQ(reconnect_delay(2, ms(100), ms(5000), -3.0), ms(400)) << "jitter clamped to 0";
  EXPECT_EQ(reconnect_delay(2, ms(100), ms(5000), 7.0), ms(800)) << "jitter clamped to 1";
  EXPECT_LE(reconnect_delay(0, ms(0), ms(0), 0.5), ms(1));
}
