// Parsing and rendering of the push body and its answer.
#include "http/api/push_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::kPartition;
using nlohmann::json;
using queen::test::error_of;

TEST(PushBody, ParsesItemsWithDefaults) {
  const auto items = parse_push_body(R"({"items":[
      {"queue":"invoices","partition":"acct-7","payload":{"amount":12},"transactionId":"inv-1",
       "traceId":"0f8fad5b-d9cb-469f-a165-70867728950e","producerSub":"ignored"},
      {"queue":"q2"},
      {"queue":"q3","payload":null,"partition":null,"traceId":"","namespace":"ns","task":7}]})");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].queue, "invoices");
  EXPECT_EQ(items[0].partition, "acct-7");
  EXPECT_EQ(items[0].payload_json, "{\"amount\":12}");
  EXPECT_EQ(items[0].transaction_id, "inv-1");
  EXPECT_EQ(items[0].trace_id, std::optional<std::string>("0f8fad5b-d9cb-469f-a165-70867728950e"));
  EXPECT_EQ(items[1].partition, "Default");
  EXPECT_EQ(items[1].payload_json, "{}");
  EXPECT_EQ(items[1].transaction_id, "");
  EXPECT_EQ(items[2].payload_json, "null");
  EXPECT_EQ(items[2].partition, "Default");
  EXPECT_FALSE(items[2].trace_id.has_value());
  EXPECT_EQ(items[2].namespace_name, std::optional<std::string>("ns"));
  EXPECT_FALSE(items[2].task.has_value());
}

TEST(PushBody, ValidationMessagesAreExact) {
  EXPECT_EQ(error_of([] { parse_push_body(""); }), "Empty request body");
  EXPECT_EQ(error_of([] { parse_push_body("{nope"); }).rfind("Invalid JSON: ", 0), 0u);
  EXPECT_EQ(error_of([] { parse_push_body("{}"); }), "items array is required");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":{}})"); }), "items array is required");
  EXPECT_EQ(error_of([] { parse_push_body(R"([1])"); }), "items array is required");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"payload":1}]})"); }), "push item 0: Queue must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":5}]})"); }), "push item 0: Queue must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"q","partition":1}]})"); }),
            "push item 0: Partition must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"q","transactionId":1}]})"); }),
            "push item 0: TransactionId must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"q","traceId":1}]})"); }),
            "push item 0: TraceId must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"q","traceId":"abc"}]})"); }),
            "push item 0: TraceId must be a valid UUID");
}

TEST(PushBody, OneBadItemRejectsTheWholeRequestAndIsNamed) {
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"ok"},{"queue":"q","partition":[]}]})"); }),
            "push item 1: Partition must be a string");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"a"},{"queue":"b"},{"queue":"c","traceId":"x"}]})"); }),
            "push item 2: TraceId must be a valid UUID");
}

TEST(PushBody, EmptyItemsIsValid) { EXPECT_TRUE(parse_push_body(R"({"items":[]})").empty()); }

TEST(RenderPush, EveryItemCarriesBothCasings) {
  broker::PushItemResult queued;
  queued.index = 0;
  queued.status = broker::PushStatus::Queued;
  queued.transaction_id = "inv-1";
  queued.message_id = "m-1";
  queued.partition_id = "p-1";
  queued.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  queued.queue = "invoices";
  queued.partition = "acct-7";
  broker::PushItemResult failed;
  failed.index = 1;
  failed.status = broker::PushStatus::Failed;
  failed.transaction_id = "inv-2";
  failed.queue = "invoices";
  failed.partition = "Default";
  failed.error = "database unavailable";
  const json out = json::parse(render_push_results({queued, failed}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["index"], 0);
  EXPECT_EQ(out[0]["status"], "queued");
  EXPECT_EQ(out[0]["transaction_id"], "inv-1");
  EXPECT_EQ(out[0]["transactionId"], "inv-1");
  EXPECT_EQ(out[0]["message_id"], "m-1");
  EXPECT_EQ(out[0]["messageId"], "m-1");
  EXPECT_EQ(out[0]["partition_id"], "p-1");
  EXPECT_EQ(out[0]["partitionId"], "p-1");
  EXPECT_EQ(out[0]["trace_id"], "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_EQ(out[0]["queueName"], "invoices");
  EXPECT_EQ(out[0]["queue"], "invoices");
  EXPECT_EQ(out[0]["partition"], "acct-7");
  EXPECT_EQ(out[1]["status"], "failed");
  EXPECT_EQ(out[1]["error"], "database unavailable");
  EXPECT_EQ(out[1]["transactionId"], "inv-2");
  EXPECT_TRUE(out[1]["message_id"].is_null());
}
