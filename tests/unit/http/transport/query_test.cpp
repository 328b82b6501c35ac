#include "http/transport/query.h"

#include <gtest/gtest.h>

using namespace queen::http;

TEST(Query, FormDecodingAndFirstOccurrenceWins) {
  const QueryParams q = parse_query_string("a=1&b=x+y&c=%2B1&a=2&flag&from=2025-03-04T09%3A15%3A26Z");
  EXPECT_EQ(q.at("a"), "1");
  EXPECT_EQ(q.at("b"), "x y");
  EXPECT_EQ(q.at("c"), "+1");
  EXPECT_EQ(q.at("flag"), "");
  EXPECT_EQ(q.at("from"), "2025-03-04T09:15:26Z");
}

TEST(Query, BooleansAreTrueOrOneOnly) {
  const QueryParams q = parse_query_string("a=true&b=1&c=false&d=yes&e=TRUE");
  EXPECT_TRUE(query_bool(q, "a", false));
  EXPECT_TRUE(query_bool(q, "b", false));
  EXPECT_FALSE(query_bool(q, "c", true));
  EXPECT_FALSE(query_bool(q, "d", true));
  EXPECT_FALSE(query_bool(q, "e", true));
  EXPECT_TRUE(query_bool(q, "absent", true));
  EXPECT_TRUE(query_bool(parse_query_string("f="), "f", true));  // an empty value is absent
}

TEST(Query, UnparsableIntegersUseTheDefault) {
  const QueryParams q = parse_query_string("a=10&b=abc&c=&d=-5&e=7x");
  EXPECT_EQ(query_int(q, "a", 1), 10);
  EXPECT_EQ(query_int(q, "b", 1), 1);
  EXPECT_EQ(query_int(q, "c", 1), 1);
  EXPECT_EQ(query_int(q, "d", 1), -5);
  EXPECT_EQ(query_int(q, "e", 1), 1);
  EXPECT_EQ(query_int(q, "absent", 3), 3);
}
