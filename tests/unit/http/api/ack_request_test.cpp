// Parsing and rendering of the ack bodies and their answer.
#include "http/api/ack_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::kPartition;
using nlohmann::json;
using queen::test::error_of;

TEST(AckBody, SingleAckFieldsAndGroup) {
  const AckRequest a = parse_ack_body(std::string(R"({"transactionId":"t","partitionId":")") + kPartition +
                                      R"(","leaseId":"","status":"failed","error":"smtp","consumerGroup":"mailer"})");
  ASSERT_EQ(a.items.size(), 1u);
  EXPECT_EQ(a.items[0].transaction_id, "t");
  EXPECT_EQ(a.items[0].partition_id, kPartition);
  EXPECT_FALSE(a.items[0].lease_id.has_value());  // empty = none
  EXPECT_EQ(a.items[0].status, std::optional<std::string>("failed"));
  EXPECT_EQ(a.items[0].error, std::optional<std::string>("smtp"));
  EXPECT_EQ(a.consumer_group, std::optional<std::string>("mailer"));
  const AckRequest queue_mode = parse_ack_body(std::string(R"({"transactionId":"t","partitionId":")") + kPartition +
                                               R"(","consumerGroup":null,"error":null})");
  EXPECT_FALSE(queue_mode.consumer_group.has_value());
  EXPECT_FALSE(queue_mode.items[0].error.has_value());
}

TEST(AckBody, SingleAckValidation) {
  EXPECT_EQ(error_of([] { parse_ack_body(""); }), "Empty request body");
  EXPECT_EQ(error_of([] { parse_ack_body(R"({"partitionId":"x"})"); }), "transactionId is required");
  EXPECT_EQ(error_of([] { parse_ack_body(R"({"transactionId":"t"})"); }),
            "partitionId is required to ensure message uniqueness");
  EXPECT_EQ(error_of([] { parse_ack_body(R"({"transactionId":"t","partitionId":"p-1"})"); }),
            "partitionId must be a valid UUID");
}

TEST(AckBody, BatchTakesTheTopLevelGroupOnly) {
  const AckRequest a = parse_ack_batch_body(std::string(R"({"consumerGroup":"g","acknowledgments":[
      {"transactionId":"t1","partitionId":")") + kPartition + R"(","consumerGroup":"other"},
      {"transactionId":"t2","partitionId":")" + kPartition + R"(","status":"completed"}]})");
  ASSERT_EQ(a.items.size(), 2u);
  EXPECT_EQ(a.consumer_group, std::optional<std::string>("g"));
  EXPECT_EQ(a.items[1].status, std::optional<std::string>("completed"));
  EXPECT_TRUE(parse_ack_batch_body(R"({"acknowledgments":[]})").items.empty());
}

TEST(AckBody, BatchValidation) {
  EXPECT_EQ(error_of([] { parse_ack_batch_body("{}"); }), "acknowledgments array is required");
  EXPECT_EQ(error_of([] { parse_ack_batch_body(R"({"acknowledgments":[{"partitionId":"x"}]})"); }),
            "Each acknowledgment must have a valid transactionId string");
  EXPECT_EQ(error_of([] { parse_ack_batch_body(R"({"acknowledgments":[{"transactionId":"t","partitionId":5}]})"); }),
            "Each acknowledgment must have a valid partitionId string to ensure message uniqueness");
}

TEST(RenderAck, ArrayOfResults) {
  db::AckRow row;
  row.idx = 0;
  row.transaction_id = "t";
  row.success = false;
  row.error = "Invalid or expired lease";
  row.queue_name = "q";
  row.partition_name = "p";
  const json out = json::parse(render_ack_results({row}));
  ASSERT_TRUE(out.is_array());
  EXPECT_EQ(out[0]["index"], 0);
  EXPECT_EQ(out[0]["success"], false);
  EXPECT_EQ(out[0]["error"], "Invalid or expired lease");
  EXPECT_EQ(out[0]["queueName"], "q");
  EXPECT_EQ(out[0]["partitionName"], "p");
  EXPECT_EQ(out[0]["leaseReleased"], false);
  EXPECT_EQ(out[0]["dlq"], false);
}
