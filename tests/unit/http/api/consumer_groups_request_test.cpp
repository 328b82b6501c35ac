// Parsing and rendering of the /api/v1/consumer-groups/* routes (bodies, query parameters, answers).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/api/consumer_groups_request.h"
#include "http/transport/http_types.h"

using namespace queen;
using nlohmann::json;

namespace {

std::string error_of(const std::function<void()>& call, int* status = nullptr) {
  try {
    call();
  } catch (const http::HttpError& e) {
    if (status) *status = e.status();
    return e.what();
  }
  return {};
}

const config::LimitsConfig kLimits = config::Config::defaults().limits;

}  // namespace

TEST(ConsumerGroupsRequest, SeekTakesToEndOrATimestamp) {
  EXPECT_TRUE(http::parse_seek_body(R"({"toEnd": true})", kLimits).to_end);
  // toEnd wins when both are given
  EXPECT_TRUE(http::parse_seek_body(R"({"toEnd": true, "timestamp": "2025-03-01T00:00:00Z"})", kLimits).to_end);
  const http::SeekRequest at = http::parse_seek_body(R"({"timestamp": "2025-03-01T00:00:00.123456Z"})", kLimits);
  EXPECT_FALSE(at.to_end);
  EXPECT_EQ(at.timestamp, "2025-03-01T00:00:00.123456Z");  // PostgreSQL gets every digit
  EXPECT_EQ(at.timestamp_ms, 1740787200123);
}

TEST(ConsumerGroupsRequest, SeekWithoutATargetIs400WithTheClientsMessage) {
  for (const char* body : {"", "{}", R"({"toEnd": false})", R"({"timestamp": null})", R"({"toEnd": "yes"})"}) {
    int status = 0;
    EXPECT_EQ(error_of([&] { http::parse_seek_body(body, kLimits); }, &status),
              "Must specify either 'toEnd': true or 'timestamp'")
        << body;
    EXPECT_EQ(status, 400);
  }
  int status = 0;
  EXPECT_EQ(error_of([&] { http::parse_seek_body(R"({"timestamp": "soon"})", kLimits); }, &status),
            "timestamp must be an ISO-8601 timestamp");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(error_of([&] { http::parse_seek_body(R"({"timestamp": 1740787200000})", kLimits); }),
            "timestamp must be an ISO-8601 timestamp");
  EXPECT_EQ(error_of([&] { http::parse_seek_body("[]", kLimits); }), "Request body must be a JSON object");
}

TEST(ConsumerGroupsRequest, SubscriptionTimestampIsRequired) {
  EXPECT_EQ(http::parse_subscription_timestamp(R"({"subscriptionTimestamp": "2025-03-01T00:00:00Z"})", kLimits),
            "2025-03-01T00:00:00Z");
  for (const char* body : {"", "{}", R"({"subscriptionTimestamp": null})"}) {
    EXPECT_EQ(error_of([&] { http::parse_subscription_timestamp(body, kLimits); }),
              "Missing subscriptionTimestamp in request body")
        << body;
  }
  EXPECT_EQ(error_of([&] { http::parse_subscription_timestamp(R"({"subscriptionTimestamp": "x"})", kLimits); }),
            "subscriptionTimestamp must be an ISO-8601 timestamp");
}

TEST(ConsumerGroupsRequest, QueryDefaults) {
  EXPECT_EQ(http::parse_min_lag_seconds({}), 3600);
  EXPECT_EQ(http::parse_min_lag_seconds({{"minLagSeconds", "60"}}), 60);
  EXPECT_EQ(http::parse_min_lag_seconds({{"minLagSeconds", "0"}}), 0);
  EXPECT_EQ(http::parse_min_lag_seconds({{"minLagSeconds", "soon"}}), 3600);
  EXPECT_EQ(http::parse_min_lag_seconds({{"minLagSeconds", "-1"}}), 3600);
  EXPECT_TRUE(http::parse_delete_metadata({}));
  EXPECT_TRUE(http::parse_delete_metadata({{"deleteMetadata", "true"}}));
  EXPECT_TRUE(http::parse_delete_metadata({{"deleteMetadata", ""}}));  // empty = absent
  EXPECT_FALSE(http::parse_delete_metadata({{"deleteMetadata", "false"}}));
}

TEST(ConsumerGroupsRequest, Answers) {
  EXPECT_EQ(json::parse(http::render_group_deleted("mail/ers", std::nullopt, 12, true)),
            json::parse(R"({"success":true,"consumerGroup":"mail/ers","deletedPartitions":12,"metadataDeleted":true})"));
  EXPECT_EQ(json::parse(http::render_group_deleted("g", std::string("q"), 0, false)),
            json::parse(R"({"success":true,"consumerGroup":"g","queueName":"q","deletedPartitions":0,"metadataDeleted":false})"));
  EXPECT_EQ(json::parse(http::render_subscription_updated("g", "2025-03-01T00:00:00Z", 1)),
            json::parse(R"({"success":true,"consumerGroup":"g","newTimestamp":"2025-03-01T00:00:00Z","rowsUpdated":1})"));
  http::SeekRequest at;
  at.timestamp = "2025-03-01T00:00:00Z";
  at.timestamp_ms = 1740787200000;
  EXPECT_EQ(json::parse(http::render_seek("g", "q", at, 10)),
            json::parse(R"({"success":true,"consumerGroup":"g","queueName":"q","seekToEnd":false,)"
                        R"("targetTimestamp":"2025-03-01T00:00:00.000Z","partitionsUpdated":10})"));
  http::SeekRequest to_end;
  to_end.to_end = true;
  EXPECT_EQ(json::parse(http::render_seek("g", "q", to_end, 0))["targetTimestamp"], nullptr);
  EXPECT_EQ(json::parse(http::render_partition_seek("g", "q", "p", 1740787200000000)),
            json::parse(R"({"success":true,"consumerGroup":"g","queueName":"q","partitionName":"p","updated":true,)"
                        R"("cursorMovedTo":"2025-03-01T00:00:00.000Z"})"));
  EXPECT_EQ(json::parse(http::render_partition_seek("g", "q", "p", std::nullopt))["cursorMovedTo"], nullptr);
}
