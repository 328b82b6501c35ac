#include "http/render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace queen;
using namespace queen::http;
using nlohmann::json;

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
