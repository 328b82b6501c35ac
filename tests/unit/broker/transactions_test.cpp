#include "broker/transactions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "broker/broker_error.h"

using namespace queen::broker;

namespace {

PushItem push_item(const std::string& queue, const std::string& txid, std::optional<std::int64_t> deliver_at = {}) {
  PushItem i;
  i.queue = queue;
  i.transaction_id = txid;
  i.payload_json = R"({"n":1})";
  i.deliver_at_ms = deliver_at;
  return i;
}

TransactionOperation push_op(std::vector<PushItem> items) {
  TransactionOperation op;
  op.kind = TransactionOperation::Kind::Push;
  op.items = std::move(items);
  return op;
}

TransactionOperation verbatim_op(const std::string& json) {
  TransactionOperation op;
  op.kind = TransactionOperation::Kind::Verbatim;
  op.verbatim_json = json;
  return op;
}

}  // namespace

TEST(EncodeTransaction, KeepsOperationOrderAndSplicesVerbatimOperations) {
  TransactionCommand command;
  command.operations.push_back(verbatim_op(R"({"type":"ack","transactionId":"in-1","partitionId":"p"})"));
  command.operations.push_back(push_op({push_item("out", "o-1"), push_item("audit", "a-1")}));
  command.operations.push_back(verbatim_op(R"({"type":"frobnicate"})"));
  command.required_leases = {"0195b7e4-0a11-7c22-9d33-4e5f60718293"};

  const auto doc = nlohmann::json::parse(encode_transaction(command));
  ASSERT_EQ(doc["operations"].size(), 3u);
  EXPECT_EQ(doc["operations"][0], nlohmann::json::parse(R"({"type":"ack","transactionId":"in-1","partitionId":"p"})"));
  EXPECT_EQ(doc["operations"][1]["type"], "push");
  ASSERT_EQ(doc["operations"][1]["items"].size(), 2u);
  EXPECT_EQ(doc["operations"][1]["items"][0]["queue"], "out");
  EXPECT_EQ(doc["operations"][1]["items"][0]["transactionId"], "o-1");
  EXPECT_EQ(doc["operations"][1]["items"][0]["payload"], nlohmann::json::parse(R"({"n":1})"));
  EXPECT_EQ(doc["operations"][1]["items"][1]["queue"], "audit");
  EXPECT_EQ(doc["operations"][2]["type"], "frobnicate");
  EXPECT_EQ(doc["requiredLeases"], nlohmann::json::parse(R"(["0195b7e4-0a11-7c22-9d33-4e5f60718293"])"));
}

TEST(EncodeTransaction, PushItemsCarryOnlyTheKeysTheBrokerWrites) {
  // Whatever the client put on an item (e.g. "encrypted": true, which would
  // mark a plaintext payload as an envelope) never reaches the database:
  // push items are re-encoded from PushItem.
  TransactionCommand command;
  command.operations.push_back(push_op({push_item("out", "o-1", 1700000000000)}));
  const auto item = nlohmann::json::parse(encode_transaction(command))["operations"][0]["items"][0];
  std::set<std::string> keys;
  for (const auto& [key, value] : item.items()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"queue", "partition", "payload", "transactionId", "deliverAt"}));
  EXPECT_EQ(item["deliverAt"], 1700000000000);
  EXPECT_EQ(item["partition"], "Default");
}

TEST(EncodeTransaction, NoRequiredLeasesIsAnEmptyArray) {
  TransactionCommand command;
  command.operations.push_back(verbatim_op(R"({"type":"ack"})"));
  EXPECT_EQ(encode_transaction(command), R"({"operations":[{"type":"ack"}],"requiredLeases":[]})");
}

TEST(SummarizeTransactionResult, CountsPushAndAckResultsOfASuccess) {
  const auto summary = summarize_transaction_result(R"({"transactionId":"t","success":true,"results":[
      {"index":0,"type":"ack","success":true,"transactionId":"in-1","error":null,"dlq":false},
      {"index":1,"type":"push","success":true,"transactionId":"o-1","queueName":"out"},
      {"index":2,"type":"push","success":true,"transactionId":"a-1","queueName":"audit"}]})");
  EXPECT_TRUE(summary.success);
  EXPECT_EQ(summary.pushed, 2u);
  EXPECT_EQ(summary.acked, 1u);
}

TEST(SummarizeTransactionResult, ReadsAFailure) {
  const auto summary = summarize_transaction_result(
      R"({"transactionId":"t","success":false,"error":"Unknown operation type: x","results":[]})");
  EXPECT_FALSE(summary.success);
  EXPECT_EQ(summary.pushed, 0u);
}

TEST(SummarizeTransactionResult, AResultWithoutSuccessFlagIsAnInternalError) {
  for (const char* result : {"", "[]", R"({"success":"yes"})", "{not json"}) {
    try {
      summarize_transaction_result(result);
      ADD_FAILURE() << "accepted: " << result;
    } catch (const BrokerError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Internal) << result;
      EXPECT_STREQ(e.what(), "the database returned an unreadable transaction result");
    }
  }
}

TEST(QueuesToWake, ListsQueuesWithMessagesPoppableNow) {
  const std::int64_t now = 1'000'000;
  TransactionCommand command;
  command.operations.push_back(verbatim_op(R"({"type":"ack"})"));
  command.operations.push_back(push_op({push_item("now", "1"), push_item("past", "2", now - 1),
                                        push_item("later", "3", now + 1), push_item("exactly", "4", now)}));
  command.operations.push_back(push_op({push_item("now", "5")}));
  EXPECT_EQ(queues_to_wake(pushed_items(command), now), (std::set<std::string>{"now", "past", "exactly"}));
  EXPECT_TRUE(schedules_timers(pushed_items(command), now));
}

TEST(QueuesToWake, NoTimersWithoutAFutureDeliverAt) {
  TransactionCommand command;
  command.operations.push_back(push_op({push_item("q", "1"), push_item("q", "2", 5)}));
  EXPECT_FALSE(schedules_timers(pushed_items(command), 10));
  EXPECT_EQ(queues_to_wake(pushed_items(command), 10), (std::set<std::string>{"q"}));
}
