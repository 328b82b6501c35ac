// Parsing and rendering of the configure body.
#include "http/api/queue_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::error_of;

TEST(ConfigureBody, QueueRequiredOptionsPassedThrough) {
  const ConfigureRequest c = parse_configure_body(R"({"queue":"q","namespace":null,"task":"t","options":{"leaseTime":5}})");
  EXPECT_EQ(c.queue, "q");
  EXPECT_EQ(c.namespace_name, "");
  EXPECT_EQ(c.task, "t");
  EXPECT_EQ(c.options_json, "{\"leaseTime\":5}");
  EXPECT_EQ(parse_configure_body(R"({"queue":"q"})").options_json, "{}");
  EXPECT_EQ(error_of([] { parse_configure_body(R"({"options":{}})"); }), "queue is required");
  EXPECT_EQ(error_of([] { parse_configure_body(""); }), "Empty request body");
}
