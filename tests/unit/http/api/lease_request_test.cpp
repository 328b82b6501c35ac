// Parsing and rendering of the lease-extend body and its answer.
#include "http/api/lease_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using nlohmann::json;
using queen::test::error_of;

TEST(LeaseBody, OptionalBodyAndSeconds) {
  EXPECT_EQ(parse_lease_seconds(""), 60);
  EXPECT_EQ(parse_lease_seconds("{}"), 60);
  EXPECT_EQ(parse_lease_seconds(R"({"seconds":null})"), 60);
  EXPECT_EQ(parse_lease_seconds(R"({"seconds":120})"), 120);
  EXPECT_EQ(error_of([] { parse_lease_seconds(R"({"seconds":0})"); }), "seconds must be a positive integer");
  EXPECT_EQ(error_of([] { parse_lease_seconds(R"({"seconds":"60"})"); }), "seconds must be a positive integer");
}

TEST(RenderLease, ObjectWithMillisecondExpiry) {
  const json ok = json::parse(render_lease_extension("L", {true, 1741079726123456LL, std::nullopt}));
  EXPECT_EQ(ok["leaseId"], "L");
  EXPECT_EQ(ok["success"], true);
  EXPECT_EQ(ok["newExpiresAt"], "2025-03-04T09:15:26.123Z");
  EXPECT_EQ(ok["expiresAt"], "2025-03-04T09:15:26.123Z");
  EXPECT_TRUE(ok["error"].is_null());
  const json lost = json::parse(render_lease_extension("L", {false, std::nullopt, std::string("Lease not found")}));
  EXPECT_EQ(lost["success"], false);
  EXPECT_TRUE(lost["newExpiresAt"].is_null());
  EXPECT_EQ(lost["error"], "Lease not found");
}
