// POST /api/v1/transaction: request validation (parse_transaction_body) and
// the route on a fake database (status codes, verbatim result, wake-ups).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admin_routes_support.h"
#include "http/api/transaction_request.h"

using namespace queen;
using namespace queen::http;
using broker::TransactionOperation;

namespace {

std::string error_of(const std::string& body) {
  try {
    parse_transaction_body(body);
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    return e.what();
  }
  return "<no error>";
}

std::string error_message(const Response& r) { return nlohmann::json::parse(r.body).value("error", "<none>"); }

struct TransactionRoute : ::testing::Test, test::AdminRoutesFixture {};

constexpr const char* kAckAndPush = R"({"operations":[
    {"type":"ack","transactionId":"in-1","partitionId":"a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2"},
    {"type":"push","items":[{"queue":"rendered","payload":{"pdf":1}},{"queue":"audit","transactionId":"a-1"}]}]})";

}  // namespace

TEST(TransactionBody, RejectsMissingOrEmptyBodies) {
  EXPECT_EQ(error_of(""), "Empty request body");
  EXPECT_EQ(error_of("  \n"), "Empty request body");
  EXPECT_EQ(error_of(R"({"operations": [)").rfind("Invalid JSON: ", 0), 0u);
}

TEST(TransactionBody, RequiresANonEmptyOperationsArray) {
  EXPECT_EQ(error_of("{}"), "operations array required");
  EXPECT_EQ(error_of(R"({"operations":null})"), "operations array required");
  EXPECT_EQ(error_of(R"({"operations":{"type":"ack"}})"), "operations array required");
  EXPECT_EQ(error_of(R"([{"type":"ack"}])"), "operations array required");
  EXPECT_EQ(error_of(R"({"operations":[]})"), "operations array cannot be empty");
}

TEST(TransactionBody, RequiredLeasesMustBeAnArrayOfStrings) {
  EXPECT_EQ(error_of(R"({"operations":[{"type":"ack"}],"requiredLeases":"x"})"),
            "requiredLeases must be an array of lease ids");
  EXPECT_EQ(error_of(R"({"operations":[{"type":"ack"}],"requiredLeases":[7]})"),
            "requiredLeases must be an array of lease ids");
  const auto none = parse_transaction_body(R"({"operations":[{"type":"ack"}],"requiredLeases":null})");
  EXPECT_TRUE(none.required_leases.empty());
  const auto two = parse_transaction_body(R"({"operations":[{"type":"ack"}],"requiredLeases":["l1","l2"]})");
  EXPECT_EQ(two.required_leases, (std::vector<std::string>{"l1", "l2"}));
}

TEST(TransactionBody, PushItemsAreValidatedLikeSlashPush) {
  EXPECT_EQ(error_of(R"({"operations":[{"type":"push","items":[{"payload":1}]}]})"), "push item 0: Queue must be a string");
  EXPECT_EQ(error_of(R"({"operations":[{"type":"push","items":[{"queue":"q","traceId":"nope"}]}]})"),
            "push item 0: TraceId must be a valid UUID");
}

TEST(TransactionBody, TypesPushOperationsAndKeepsTheRestVerbatim) {
  const auto command = parse_transaction_body(R"({"operations":[
      {"type":"ack","transactionId":"in-1","partitionId":"p","status":"failed","error":"x"},
      {"type":"push","items":[{"queue":"out","partition":"acct-7","payload":{"a":1},"transactionId":"o-1"}]},
      {"type":"push"},
      {"type":"frobnicate","n":1},
      42]})");
  ASSERT_EQ(command.operations.size(), 5u);
  EXPECT_EQ(command.operations[0].kind, TransactionOperation::Kind::Verbatim);
  EXPECT_EQ(nlohmann::json::parse(command.operations[0].verbatim_json),
            nlohmann::json::parse(R"({"type":"ack","transactionId":"in-1","partitionId":"p","status":"failed","error":"x"})"));
  ASSERT_EQ(command.operations[1].kind, TransactionOperation::Kind::Push);
  ASSERT_EQ(command.operations[1].items.size(), 1u);
  EXPECT_EQ(command.operations[1].items[0].queue, "out");
  EXPECT_EQ(command.operations[1].items[0].partition, "acct-7");
  EXPECT_EQ(command.operations[1].items[0].payload_json, R"({"a":1})");
  EXPECT_EQ(command.operations[1].items[0].transaction_id, "o-1");
  // A push without items, an unknown type and a non-object are the
  // database's to refuse (success:false), not a 400.
  EXPECT_EQ(command.operations[2].kind, TransactionOperation::Kind::Verbatim);
  EXPECT_EQ(command.operations[3].kind, TransactionOperation::Kind::Verbatim);
  EXPECT_EQ(command.operations[4].verbatim_json, "42");
}

TEST_F(TransactionRoute, ValidationFailuresNeverReachTheDatabase) {
  for (const char* body : {"", "{", "{}", R"({"operations":[]})"}) {
    const Response r = call("POST", "/api/v1/transaction", body);
    EXPECT_EQ(r.status, 400) << body;
  }
  EXPECT_EQ(error_message(call("POST", "/api/v1/transaction", R"({"operations":[]})")),
            "operations array cannot be empty");
  EXPECT_TRUE(db.transaction_calls.empty());
}

TEST_F(TransactionRoute, AnswersTheProcedureResultVerbatimAndMintsMissingTransactionIds) {
  db.transaction_result = R"({"transactionId":"t-1","success":true,"results":[{"index":0,"type":"ack"}]})";
  const Response r = call("POST", "/api/v1/transaction", kAckAndPush);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, db.transaction_result);
  ASSERT_EQ(db.transaction_calls.size(), 1u);
  const auto sent = nlohmann::json::parse(db.transaction_calls[0]);
  EXPECT_EQ(sent["operations"][0]["transactionId"], "in-1");
  const auto& items = sent["operations"][1]["items"];
  ASSERT_EQ(items.size(), 2u);
  const std::string minted = items[0]["transactionId"];
  EXPECT_FALSE(minted.empty());  // JS omits it: the broker mints one, as on /push
  EXPECT_EQ(items[1]["transactionId"], "a-1");
  EXPECT_EQ(sent["requiredLeases"], nlohmann::json::array());
  EXPECT_EQ(db.last_producer_sub, std::nullopt);
}

TEST_F(TransactionRoute, ASuccessWakesParkedPopsOfThePushedQueuesLocallyAndOnPeers) {
  wake::PopWaiters::Registration rendered(waiters, "rendered");
  wake::PopWaiters::Registration unrelated(waiters, "unrelated");
  rendered.arm();
  unrelated.arm();
  ASSERT_EQ(call("POST", "/api/v1/transaction", kAckAndPush).status, 200);
  const auto now = waiters.clock().now();
  EXPECT_TRUE(rendered.wait_until(now));
  EXPECT_FALSE(unrelated.wait_until(now));
  ASSERT_EQ(cluster.pushes.size(), 1u);
  EXPECT_EQ(cluster.pushes[0], (std::set<std::string>{"rendered", "audit"}));
  EXPECT_EQ(cluster.timers, 0);
}

TEST_F(TransactionRoute, AFutureDeliverAtAsksTheSweeperInsteadOfWakingPops) {
  const Response r = call("POST", "/api/v1/transaction",
                          R"({"operations":[{"type":"push","items":[
                              {"queue":"later","deliverAt":"9999-01-01T00:00:00Z"}]}]})");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(cluster.pushes.empty());
  EXPECT_EQ(cluster.timers, 1);
}

TEST_F(TransactionRoute, ABusinessFailureIs200AndWakesNobody) {
  db.transaction_result =
      R"({"transactionId":"t-2","success":false,"error":"ACK operation failed: Message not found","results":[]})";
  wake::PopWaiters::Registration rendered(waiters, "rendered");
  rendered.arm();
  const Response r = call("POST", "/api/v1/transaction", kAckAndPush);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, db.transaction_result);
  EXPECT_FALSE(rendered.wait_until(waiters.clock().now()));
  EXPECT_TRUE(cluster.pushes.empty());
}

TEST_F(TransactionRoute, AnUnreachableDatabaseIs503WithNoSpoolFallback) {
  db.failure = db::DbError("connection refused", "");
  const Response r = call("POST", "/api/v1/transaction", kAckAndPush);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(error_message(r), "database unavailable");
  EXPECT_TRUE(cluster.pushes.empty());
}

TEST_F(TransactionRoute, PushMaintenanceDoesNotDivertTransactions) {
  flags.apply_push(true, "test");
  EXPECT_EQ(call("POST", "/api/v1/transaction", kAckAndPush).status, 200);
  EXPECT_EQ(db.transaction_calls.size(), 1u);
}

TEST_F(TransactionRoute, AnUnreadableProcedureResultIs500) {
  db.transaction_result = "";
  EXPECT_EQ(call("POST", "/api/v1/transaction", kAckAndPush).status, 500);
}
