// The one piece of encoding the sweeper's database calls do themselves: the
// claimed ids travel to queen.fire_timers as a bigint[] literal.
#include "db/timers_db.h"

#include <gtest/gtest.h>

using queen::db::to_bigint_array_literal;

TEST(BigintArrayLiteral, Empty) { EXPECT_EQ(to_bigint_array_literal({}), "{}"); }

TEST(BigintArrayLiteral, CommaSeparatedWithoutSpaces) {
  EXPECT_EQ(to_bigint_array_literal({1, 22, 9007199254740993}), "{1,22,9007199254740993}");
}

TEST(BigintArrayLiteral, NegativeIds) { EXPECT_EQ(to_bigint_array_literal({-3}), "{-3}"); }
