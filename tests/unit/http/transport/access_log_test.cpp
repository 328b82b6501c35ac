#include "http/transport/access_log.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "util/uuid.h"

using namespace queen::http;

TEST(RequestId, AWellFormedOneIsTaken) {
  EXPECT_EQ(request_id_of("req-1.a_b:c"), "req-1.a_b:c");
  EXPECT_EQ(request_id_of(std::string(kMaxRequestIdLength, 'x')), std::string(kMaxRequestIdLength, 'x'));
}

TEST(RequestId, AnythingElseGetsAFreshUuid) {
  for (const std::string& sent : {std::string(), std::string("two words"), std::string(kMaxRequestIdLength + 1, 'x'),
                                 std::string("quote\""), std::string("new\nline"), std::string("\xc3\xbc")}) {
    const std::string id = request_id_of(sent);
    EXPECT_TRUE(queen::util::is_uuid(id)) << sent << " -> " << id;
    EXPECT_NE(id, sent);
  }
  EXPECT_NE(request_id_of(""), request_id_of(""));
}

TEST(AccessLine, CarriesEveryFieldAsJson) {
  const auto line = nlohmann::json::parse(
      access_line(AccessEntry{"POST", "/api/v1/push", "/api/v1/push", 201, 0.0123456, "acme", 512, "r-1"}));
  EXPECT_EQ(line, nlohmann::json::parse(R"({"event":"access","method":"POST","route":"/api/v1/push",
      "path":"/api/v1/push","status":201,"durationMs":12.346,"tenant":"acme","bytes":512,"requestId":"r-1"})"));
  // A path that is not UTF-8 still gives a parsable line.
  EXPECT_NO_THROW(nlohmann::json::parse(access_line(AccessEntry{"GET", "unmatched", "/\xff", 404, 0, "", 0, "r"})));
}
