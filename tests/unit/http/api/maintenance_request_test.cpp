// Parsing and rendering of the maintenance toggles' body.
#include "http/api/maintenance_request.h"

#include <gtest/gtest.h>
#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::error_of;

TEST(EnabledBody, BooleanRequired) {
  EXPECT_TRUE(parse_enabled_body(R"({"enabled":true})"));
  EXPECT_FALSE(parse_enabled_body(R"({"enabled":false})"));
  EXPECT_EQ(error_of([] { parse_enabled_body(R"({"enabled":"true"})"); }), "enabled (boolean) is required");
  EXPECT_EQ(error_of([] { parse_enabled_body(R"({})"); }), "enabled (boolean) is required");
}
