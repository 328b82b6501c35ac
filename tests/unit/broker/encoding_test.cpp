#include "broker/encoding.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace queen::broker;

TEST(Encoding, PushItemSplicesThePayloadVerbatim) {
  PushItem item;
  item.queue = "orders \"eu\"";
  item.partition = "p-1";
  item.payload_json = "{\"amount\":12.50,\"tags\":[1,2]}";
  item.transaction_id = "tx-1";
  item.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  const std::string text = encode_push_item(item);
  EXPECT_NE(text.find("\"payload\":{\"amount\":12.50,\"tags\":[1,2]}"), std::string::npos);
  const auto parsed = nlohmann::json::parse(text);
  EXPECT_EQ(parsed["queue"], "orders \"eu\"");
  EXPECT_EQ(parsed["partition"], "p-1");
  EXPECT_EQ(parsed["transactionId"], "tx-1");
  EXPECT_EQ(parsed["traceId"], "0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_FALSE(parsed.contains("namespace"));
  EXPECT_FALSE(parsed.contains("task"));
}

TEST(Encoding, PushItemNullPayloadAndNamespaceTask) {
  PushItem item;
  item.queue = "q";
  item.payload_json = "null";
  item.transaction_id = "t";
  item.namespace_name = "billing";
  item.task = "render";
  const auto parsed = nlohmann::json::parse(encode_push_item(item));
  EXPECT_TRUE(parsed["payload"].is_null());
  EXPECT_EQ(parsed["partition"], "Default");
  EXPECT_EQ(parsed["namespace"], "billing");
  EXPECT_EQ(parsed["task"], "render");
}

TEST(Encoding, JoinArray) {
  const std::string a = "{\"x\":1}", b = "2";
  EXPECT_EQ(join_json_array({&a, &b}), "[{\"x\":1},2]");
  EXPECT_EQ(join_json_array({}), "[]");
}

TEST(Encoding, AckItemsCarryOnlyWhatWasGiven) {
  AckItem full{"t1", "0f8fad5b-d9cb-469f-a165-70867728950e", std::string("lease"), std::string("failed"),
               std::string("smtp 451")};
  AckItem bare{"t2", "0f8fad5b-d9cb-469f-a165-70867728950e", std::nullopt, std::nullopt, std::nullopt};
  const auto parsed = nlohmann::json::parse(encode_ack_items({full, bare}));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["leaseId"], "lease");
  EXPECT_EQ(parsed[0]["status"], "failed");
  EXPECT_EQ(parsed[0]["error"], "smtp 451");
  EXPECT_EQ(parsed[1]["transactionId"], "t2");
  EXPECT_FALSE(parsed[1].contains("leaseId"));
  EXPECT_FALSE(parsed[1].contains("status"));
}

TEST(Encoding, PushItemMarksAnEncryptedPayloadOnly) {
  PushItem item;
  item.queue = "q";
  item.transaction_id = "t";
  EXPECT_FALSE(nlohmann::json::parse(encode_push_item(item)).contains("encrypted"));
  item.encrypted = true;
  EXPECT_EQ(nlohmann::json::parse(encode_push_item(item))["encrypted"], true);
  // keyHeld: plaintext from a broker with a key (docs/encryption.md), written only when set.
  EXPECT_FALSE(nlohmann::json::parse(encode_push_item(item)).contains("keyHeld"));
  item.encrypted = false;
  item.key_held = true;
  EXPECT_EQ(nlohmann::json::parse(encode_push_item(item))["keyHeld"], true);
}

