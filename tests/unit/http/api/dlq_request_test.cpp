// Parsing and rendering of the DLQ-admin selections.
#include "http/api/dlq_request.h"

#include <gtest/gtest.h>
#include "http/transport/query.h"
#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::kUpperCasePartition;
using queen::test::error_of;
using queen::test::status_of;

TEST(DlqSelection, QueueIsRequiredAndFiltersAreRead) {
  EXPECT_EQ(error_of([] { parse_dlq_selection_body(Tenant::default_tenant(), "{}"); }), "queue is required");
  EXPECT_EQ(error_of([] { parse_dlq_selection_query(Tenant::default_tenant(), parse_query_string("queue=")); }), "queue is required");
  const auto s = parse_dlq_selection_body(Tenant::default_tenant(), 
      R"({"queue":"q","consumerGroup":null,"partition":"p","from":"2025-03-04T09:15:26Z","to":2000})");
  EXPECT_EQ(s.queue, "q");
  EXPECT_FALSE(s.consumer_group.has_value());
  EXPECT_EQ(s.partition, "p");
  EXPECT_TRUE(s.failed_from_ms.has_value());
  EXPECT_EQ(s.failed_to_ms, 2000);
  EXPECT_EQ(status_of([] { parse_dlq_selection_body(Tenant::default_tenant(), R"({"queue":"q","to":true})"); }), 400);
  EXPECT_EQ(status_of([] { parse_dlq_selection_body(Tenant::default_tenant(), R"({"queue":"q","from":"yesterday"})"); }), 400);
  EXPECT_FALSE(parse_dlq_message_selection(Tenant::default_tenant(), "nope", std::nullopt).has_value());
  EXPECT_EQ(parse_dlq_message_selection(Tenant::default_tenant(), kUpperCasePartition, std::string("g"))->consumer_group, "g");
  EXPECT_EQ(parse_dlq_group_body(""), std::nullopt);
  EXPECT_EQ(parse_dlq_group_body(R"({"consumerGroup":"g1"})"), "g1");
}
