// Through the real dispatcher: a database error reaches the client as its
// primary message alone (db/error_text.h), and the routes read their limits
// from config.limits.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admin_routes_support.h"

using namespace queen;

namespace {

struct CleanErrors : ::testing::Test, test::AdminRoutesFixture {};

std::string error_message(const http::Response& r) {
  return nlohmann::json::parse(r.body).value("error", "<none>");
}

void expect_no_server_text(const http::Response& r) {
  for (const char* leak : {"CONTEXT", "PL/pgSQL", "portal", "ERROR:", "$1", "secret-payload"}) {
    EXPECT_EQ(r.body.find(leak), std::string::npos) << leak << " in " << r.body;
  }
}

const char* kRaisedWithContext =
    "ERROR:  limit must be >= 1, got 0\n"
    "CONTEXT:  PL/pgSQL function queen.list_dlq(text,text,text,timestamp with time zone,timestamp with time "
    "zone,integer,integer) line 4 at RAISE\n"
    "unnamed portal parameter $1 = 'secret-payload'\n";

}  // namespace

TEST_F(CleanErrors, ABadInputRaiseIsA400WithThePrimaryMessageOnly) {
  db.failure = db::DbError("list_dlq", kRaisedWithContext, "22023");
  const http::Response r = call("GET", "/api/v1/dlq", "", "queue=q");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "limit must be >= 1, got 0");
  expect_no_server_text(r);
}

TEST_F(CleanErrors, APermanentFailureIsA500WithThePrimaryMessageOnly) {
  db.failure = db::DbError("run_transaction",
                           "ERROR:  function queen.run_transaction(jsonb, text) does not exist\n"
                           "LINE 1: SELECT queen.run_transaction($1::jsonb, $2::text)::text\n"
                           "HINT:  No function matches the given name and argument types.\n",
                           "42883");
  const http::Response r = call("POST", "/api/v1/transaction", R"({"operations":[{"type":"ack"}]})");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(error_message(r), "function queen.run_transaction(jsonb, text) does not exist");
  expect_no_server_text(r);
}

TEST_F(CleanErrors, AnOutageSaysDatabaseUnavailable) {
  db.failure = db::DbError("delete_queue", "server closed the connection unexpectedly\n\tThis probably means", "");
  const http::Response r = call("DELETE", "/api/v1/resources/queues/q");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(error_message(r), broker::kDatabaseUnavailable);
}

TEST_F(CleanErrors, RoutesUseTheConfiguredLimits) {
  config.limits.name_max_chars = 5;
  config.limits.json_max_depth = 8;
  http::Response r = call("GET", "/api/v1/dlq", "", "queue=queue6");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "queue must be at most 5 characters (NAME_MAX_CHARS)");
  r = call("POST", "/api/v1/transaction", R"({"operations":[{"type":"ack","x":[[[[[[[[1]]]]]]]]}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "JSON nesting deeper than 8 (JSON_MAX_DEPTH)");
  EXPECT_TRUE(db.dlq_calls.empty());
  EXPECT_TRUE(db.transaction_calls.empty());
}

TEST_F(CleanErrors, ANulInAQueuePathNeverReachesTheDatabase) {
  // libpq would cut "orders\0x" to "orders" and delete another queue.
  const http::Response r = call("DELETE", "/api/v1/resources/queues/orders%00x");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "queue must not contain NUL characters");
  EXPECT_TRUE(db.deleted_queues.empty());
}
