// Parsing and rendering of the three pop forms and the pop answer.
#include "http/api/pop_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "http/transport/query.h"
#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using nlohmann::json;
using queen::test::error_of;

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

TEST(RenderPop, ShapeOfSection52WithMicrosecondTimestamps) {
  broker::PopOutcome outcome;
  outcome.consumer_group = broker::kQueueModeGroup;
  for (int i = 0; i < 2; ++i) {
    db::PoppedMessage m;
    m.lease_id = "lease-1";
    m.queue_name = "invoices";
    m.partition_name = i == 0 ? "acct-7" : "acct-8";
    m.partition_id = i == 0 ? "p-7" : "p-8";
    m.message_id = "m" + std::to_string(i);
    m.transaction_id = "t" + std::to_string(i);
    m.payload_json = i == 0 ? "{\"amount\": 12}" : "null";
    m.created_at_us = 1741079726123456LL;
    m.retry_count = i;
    outcome.messages.push_back(m);
  }
  const json out = json::parse(render_pop(outcome));
  EXPECT_EQ(out["success"], true);
  EXPECT_EQ(out["queue"], "invoices");
  EXPECT_EQ(out["partition"], "acct-7");
  EXPECT_EQ(out["partitionId"], "p-7");
  EXPECT_EQ(out["leaseId"], "lease-1");
  EXPECT_EQ(out["consumerGroup"], "__QUEUE_MODE__");
  EXPECT_EQ(out["partitionsClaimed"], 2);
  ASSERT_EQ(out["messages"].size(), 2u);
  const json& m = out["messages"][0];
  EXPECT_EQ(m["id"], "m0");
  EXPECT_EQ(m["transactionId"], "t0");
  EXPECT_TRUE(m["traceId"].is_null());
  EXPECT_EQ(m["data"]["amount"], 12);
  EXPECT_TRUE(m["producerSub"].is_null());
  EXPECT_EQ(m["createdAt"], "2025-03-04T09:15:26.123456Z");
  EXPECT_EQ(m["partitionId"], "p-7");
  EXPECT_EQ(m["partition"], "acct-7");
  EXPECT_EQ(m["leaseId"], "lease-1");
  EXPECT_EQ(m["consumerGroup"], "__QUEUE_MODE__");
  EXPECT_EQ(m["queue"], "invoices");
  EXPECT_EQ(m["retryCount"], 0);
  EXPECT_TRUE(out["messages"][1]["data"].is_null());
  EXPECT_EQ(out["messages"][1]["retryCount"], 1);
}

TEST(RenderPop, AutoAckHasAnEmptyLeaseId) {
  broker::PopOutcome outcome;
  outcome.consumer_group = "g";
  db::PoppedMessage m;
  m.payload_json = "{}";
  outcome.messages.push_back(m);
  const json out = json::parse(render_pop(outcome));
  EXPECT_EQ(out["leaseId"], "");
  EXPECT_EQ(out["messages"][0]["leaseId"], "");
}
