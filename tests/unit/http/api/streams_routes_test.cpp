// The stream routes (docs/streams.md) behind a real Dispatcher, on a database
// stand-in: the 400s of the bodies, 409 for a config_hash mismatch, 200 with
// success:false for a failed cycle, 503 during an outage, what reaches the
// procedures (tenant, producer, the request documents), and the wake-ups after
// a committed cycle.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admin_routes_support.h"

namespace queen::test {
namespace {

using nlohmann::json;

class StreamRoutes : public ::testing::Test, public AdminRoutesFixture {
 protected:
  http::Response post(const std::string& path, const std::string& body, const auth::Principal& principal = auth::Principal::anonymous()) {
    return call("POST", path, body, "", principal);
  }
  static std::string error_of(const http::Response& r) { return json::parse(r.body).value("error", ""); }
  json last_request() const { return json::parse(db.stream_requests.back()); }
};

constexpr const char* kQuery = R"({"name":"counts","source_queue":"orders","config_hash":"h1"})";
constexpr const char* kIds = R"("query_id":"0195b7e4-0a11-7c22-9d33-4e5f60718293","partition_id":"0195b7e4-0a11-7c22-9d33-4e5f60718294")";

TEST_F(StreamRoutes, RegisterAnswersTheProcedureAndPassesTheTenant) {
  const auth::Principal acme{Tenant("acme"), std::string("alice"), auth::AccessLevel::ReadWrite};
  const http::Response r = post("/streams/v1/queries",
                                R"({"name":"counts","source_queue":"orders","sink_queue":"","config_hash":"h1","reset":true})", acme);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["query_id"], "q-1");
  EXPECT_EQ(db.last_tenant, "acme");
  EXPECT_EQ(last_request(), json::parse(R"({"name":"counts","source_queue":"orders","config_hash":"h1","reset":true})"))
      << "an empty sink_queue is none";
}

TEST_F(StreamRoutes, AConfigHashMismatchIs409WithTheProcedureBody) {
  db.register_result = R"({"success":false,"query_id":"q-1","name":"counts","error":"config_hash mismatch: operator chain changed for queryId 'counts'. Pass reset:true to wipe existing state, or use a new queryId."})";
  const http::Response r = post("/streams/v1/queries", kQuery);
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(json::parse(r.body)["query_id"], "q-1");
  EXPECT_EQ(error_of(r).rfind("config_hash mismatch", 0), 0u);
}

TEST_F(StreamRoutes, RegisterChecksItsBodyBeforeTheDatabase) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "Empty request body"},
      {"[1]", "request body must be a JSON object"},
      {R"({"source_queue":"o","config_hash":"h"})", "name is required"},
      {R"({"name":"","source_queue":"o","config_hash":"h"})", "name is required"},
      {R"({"name":7,"source_queue":"o","config_hash":"h"})", "name is required"},
      {R"({"name":"n","config_hash":"h"})", "source_queue is required"},
      {R"({"name":"n","source_queue":"o"})", "config_hash is required"},
      {R"({"name":"n","source_queue":"o","config_hash":")" + std::string(1025, 'h') + R"("})",
       "config_hash must be at most 1024 characters"},
      {R"({"name":"n","source_queue":"o","config_hash":"h","sink_queue":5})", "sink_queue must be a string"},
      {R"({"name":"n","source_queue":"o","config_hash":"h","reset":"yes"})", "reset must be a boolean"},
  };
  for (const auto& [body, error] : cases) {
    const http::Response r = post("/streams/v1/queries", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(error_of(r), error) << body;
  }
  EXPECT_EQ(error_of(post("/streams/v1/queries", "{")).rfind("Invalid JSON: ", 0), 0u);
  EXPECT_TRUE(db.stream_requests.empty());
}

TEST_F(StreamRoutes, StateReadsPassTheFiltersAsTheSdkMeansThem) {
  const http::Response r = post("/streams/v1/state/get",
      std::string("{") + kIds + R"(,"keys":[],"key_prefix":"tumb:60\u001f","ripe_at_or_before":1796155620000})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, db.state_result);
  const json doc = last_request();
  EXPECT_EQ(doc["keys"], json::array());
  EXPECT_EQ(doc["key_prefix"], "tumb:60\x1f");
  EXPECT_EQ(doc["ripe_at_or_before"], 1796155620000LL);

  post("/streams/v1/state/get", std::string("{") + kIds + R"(,"keys":"a","key_prefix":"","ripe_at_or_before":"5"})");
  EXPECT_EQ(last_request().count("key_prefix"), 0u) << "an empty prefix is none";
  EXPECT_EQ(last_request().count("ripe_at_or_before"), 0u) << "a string is no ripeness filter";
  EXPECT_EQ(last_request()["keys"], json::array()) << "keys that is not an array is no filter";

  EXPECT_EQ(error_of(post("/streams/v1/state/get", R"({"partition_id":"p"})")), "query_id is required");
  EXPECT_EQ(error_of(post("/streams/v1/state/get", R"({"query_id":"q"})")), "partition_id is required");
  EXPECT_EQ(error_of(post("/streams/v1/state/get", std::string("{") + kIds + R"(,"keys":[1]})")), "keys must be strings");
}

TEST_F(StreamRoutes, ACycleEncodesItsPartsAndMintsPushTransactionIds) {
  const auth::Principal acme{Tenant("acme"), std::string("alice"), auth::AccessLevel::ReadWrite};
  const http::Response r = post("/streams/v1/cycle", std::string("{") + kIds +
      R"(,"consumer_group":"streams.counts","release_lease":false,"state_ops":[{"type":"upsert","key":"k","value":{"n":1}}],)"
      R"("push_items":[{"queue":"totals","partition":"cust-42","payload":{"count":2}}],)"
      R"("ack":{"transactionId":"t3","leaseId":"l","status":"completed","count":3},"idempotency_key":"f-1"})", acme);
  EXPECT_EQ(r.status, 200);
  const json doc = last_request();
  EXPECT_EQ(doc["consumer_group"], "streams.counts");
  EXPECT_EQ(doc["release_lease"], false);
  EXPECT_EQ(doc["state_ops"], json::parse(R"([{"type":"upsert","key":"k","value":{"n":1}}])"));
  EXPECT_EQ(doc["ack"], json::parse(R"({"transactionId":"t3","leaseId":"l","status":"completed","count":3})"));
  EXPECT_EQ(doc["idempotency_key"], "f-1");
  ASSERT_EQ(doc["push_items"].size(), 1u);
  EXPECT_EQ(doc["push_items"][0]["queue"], "totals");
  EXPECT_EQ(doc["push_items"][0]["partition"], "cust-42");
  EXPECT_FALSE(doc["push_items"][0]["transactionId"].get<std::string>().empty()) << "minted by the broker";
  EXPECT_EQ(db.last_tenant, "acme");
  EXPECT_EQ(db.last_producer_sub, std::optional<std::string>("alice"));
  ASSERT_EQ(cluster.pushes.size(), 1u) << "a committed cycle wakes the sink's pops";
  EXPECT_EQ(cluster.pushes[0], std::set<std::string>{"totals"});
}

TEST_F(StreamRoutes, NullsAreAbsentAndAFlushHasNoAck) {
  post("/streams/v1/cycle", std::string("{") + kIds + R"(,"state_ops":null,"push_items":null,"ack":null,"consumer_group":""})");
  const json doc = last_request();
  EXPECT_EQ(doc["state_ops"], json::array());
  EXPECT_EQ(doc["push_items"], json::array());
  EXPECT_TRUE(doc["ack"].is_null());
  EXPECT_EQ(doc["release_lease"], true);
  EXPECT_EQ(doc.count("consumer_group"), 0u) << "an empty group is queue mode";
}

TEST_F(StreamRoutes, AFailedCycleIs200WithSuccessFalseAndWakesNothing) {
  db.cycle_result = R"({"success":false,"error":"Invalid or expired lease","push_results":[{"index":0,"status":"queued"}]})";
  const http::Response r = post("/streams/v1/cycle", std::string("{") + kIds + R"(,"push_items":[{"queue":"totals"}]})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["success"], false);
  EXPECT_EQ(error_of(r), "Invalid or expired lease");
  EXPECT_TRUE(cluster.pushes.empty());
}

TEST_F(StreamRoutes, ACycleChecksItsBodyBeforeTheDatabase) {
  const std::string ids = std::string("{") + kIds;
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"partition_id":"p"})", "query_id is required"},
      {R"({"query_id":"q"})", "partition_id is required"},
      {ids + R"(,"consumer_group":1})", "consumer_group must be a string"},
      {ids + R"(,"release_lease":"no"})", "release_lease must be a boolean"},
      {ids + R"(,"state_ops":{}})", "state_ops must be an array"},
      {ids + R"(,"push_items":{}})", "push_items must be an array"},
      {ids + R"(,"ack":"t1"})", "ack must be an object or null"},
      {ids + R"(,"idempotency_key":""})", "idempotency_key must be a string of 1 to 255 characters"},
      {ids + R"(,"idempotency_key":")" + std::string(256, 'k') + R"("})",
       "idempotency_key must be a string of 1 to 255 characters"},
  };
  for (const auto& [body, error] : cases) {
    const http::Response r = post("/streams/v1/cycle", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(error_of(r), error) << body;
  }
  EXPECT_EQ(post("/streams/v1/cycle", ids + R"(,"push_items":[{"partition":"p"}]})").status, 400)
      << "a push item as /push checks it";
  EXPECT_TRUE(db.stream_requests.empty());
}

TEST_F(StreamRoutes, AnOutageIs503AndABoundIs400) {
  db.failure = db::DbError("stream_cycle", "server closed the connection unexpectedly", "");
  const http::Response outage = post("/streams/v1/cycle", std::string("{") + kIds + "}");
  EXPECT_EQ(outage.status, 503);
  EXPECT_EQ(error_of(outage), broker::kDatabaseUnavailable);

  db.failure = db::DbError("stream_cycle",
                           "ERROR:  state_ops (3) exceeds the limit of 2 (QUEEN_STREAM_MAX_STATE_OPS)\n", "22023");
  const http::Response bound = post("/streams/v1/cycle", std::string("{") + kIds + "}");
  EXPECT_EQ(bound.status, 400);
  EXPECT_EQ(error_of(bound), "state_ops (3) exceeds the limit of 2 (QUEEN_STREAM_MAX_STATE_OPS)");

  db.failure = db::DbError("stream_cycle",
                           "ERROR:  stream state bytes quota of the default tenant reached (100 bytes, "
                           "QUEEN_TENANT_MAX_STREAM_STATE_BYTES)\n", "QQ429");
  EXPECT_EQ(post("/streams/v1/cycle", std::string("{") + kIds + "}").status, 429);
}

TEST_F(StreamRoutes, AnUnreadableResultIs500) {
  db.cycle_result = "[]";
  EXPECT_EQ(post("/streams/v1/cycle", std::string("{") + kIds + "}").status, 500);
}

}  // namespace
}  // namespace queen::test
