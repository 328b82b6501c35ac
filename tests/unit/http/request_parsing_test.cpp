#include "http/request_parsing.h"

#include <gtest/gtest.h>

#include "http/query.h"

using namespace queen;
using namespace queen::http;

namespace {

const char* kPartition = "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2";

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    return e.what();
  }
  return "<no error>";
}

}  // namespace

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

TEST(PopRequest, DefaultsAndBounds) {
  config::PopConfig pop = config::Config::defaults().pop;
  pop.default_batch_size = 3;
  pop.max_batch_size = 100;
  pop.default_subscription_mode = "new";
  Request r;
  r.params["queue"] = "orders";
  r.query = parse_query_string("wait=true&consumerGroup=&batch=0");
  broker::PopCommand c = parse_pop_request(PopForm::Wildcard, r, pop);
  EXPECT_EQ(c.query.queue, std::optional<std::string>("orders"));
  EXPECT_FALSE(c.query.partition.has_value());
  EXPECT_EQ(c.query.batch, 1);
  EXPECT_FALSE(c.query.consumer_group.has_value());
  EXPECT_TRUE(c.wait);
  EXPECT_EQ(c.timeout_ms, 30000);
  EXPECT_EQ(c.query.subscription_mode, std::optional<std::string>("new"));

  r.query = parse_query_string("batch=5000&partitions=4&timeout=abc&autoAck=1&consumerGroup=__QUEUE_MODE__");
  c = parse_pop_request(PopForm::Wildcard, r, pop);
  EXPECT_EQ(c.query.batch, 100);
  EXPECT_EQ(c.query.partitions, 4);
  EXPECT_EQ(c.timeout_ms, 30000);
  EXPECT_TRUE(c.query.auto_ack);
  EXPECT_FALSE(c.query.consumer_group.has_value());
  EXPECT_FALSE(c.wait);

  r.query = parse_query_string("");
  EXPECT_EQ(parse_pop_request(PopForm::Wildcard, r, pop).query.batch, 3);
}

TEST(PopRequest, SpecificPartitionIgnoresPartitionsAndFilterNeedsNamespaceOrTask) {
  config::PopConfig pop = config::Config::defaults().pop;
  Request r;
  r.params["queue"] = "q";
  r.params["partition"] = "p 1";
  r.query = parse_query_string("partitions=5&consumerGroup=g&subscriptionFrom=2025-01-01T00%3A00%3A00Z&"
                               "subscriptionMode=all&namespace=ignored");
  broker::PopCommand c = parse_pop_request(PopForm::Specific, r, pop);
  EXPECT_EQ(c.query.partition, std::optional<std::string>("p 1"));
  EXPECT_EQ(c.query.partitions, 1);
  EXPECT_EQ(c.query.consumer_group, std::optional<std::string>("g"));
  EXPECT_EQ(c.query.subscription_from, std::optional<std::string>("2025-01-01T00:00:00Z"));
  EXPECT_EQ(c.query.subscription_mode, std::optional<std::string>("all"));
  EXPECT_FALSE(c.query.namespace_name.has_value());

  Request filter;
  filter.query = parse_query_string("task=render");
  c = parse_pop_request(PopForm::Filter, filter, pop);
  EXPECT_FALSE(c.query.queue.has_value());
  EXPECT_EQ(c.query.task, std::optional<std::string>("render"));
  filter.query = parse_query_string("namespace=&task=");
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Filter, filter, pop); }), "namespace or task is required");
}

TEST(LeaseBody, OptionalBodyAndSeconds) {
  EXPECT_EQ(parse_lease_seconds(""), 60);
  EXPECT_EQ(parse_lease_seconds("{}"), 60);
  EXPECT_EQ(parse_lease_seconds(R"({"seconds":null})"), 60);
  EXPECT_EQ(parse_lease_seconds(R"({"seconds":120})"), 120);
  EXPECT_EQ(error_of([] { parse_lease_seconds(R"({"seconds":0})"); }), "seconds must be a positive integer");
  EXPECT_EQ(error_of([] { parse_lease_seconds(R"({"seconds":"60"})"); }), "seconds must be a positive integer");
}

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

TEST(EnabledBody, BooleanRequired) {
  EXPECT_TRUE(parse_enabled_body(R"({"enabled":true})"));
  EXPECT_FALSE(parse_enabled_body(R"({"enabled":false})"));
  EXPECT_EQ(error_of([] { parse_enabled_body(R"({"enabled":"true"})"); }), "enabled (boolean) is required");
  EXPECT_EQ(error_of([] { parse_enabled_body(R"({})"); }), "enabled (boolean) is required");
}
