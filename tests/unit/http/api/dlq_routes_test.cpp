// GET /api/v1/dlq: query parsing, the response shape and the route.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admin_routes_support.h"
#include "http/api/dlq_request.h"

using namespace queen;
using namespace queen::http;

namespace {

db::DlqEntry entry(const std::string& txid, std::int64_t failed_at_us) {
  db::DlqEntry e;
  e.message_id = "0195b7e2-0000-7000-8000-000000000001";
  e.transaction_id = txid;
  e.partition_id = "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2";
  e.queue_name = "invoices";
  e.partition_name = "acct-7";
  e.consumer_group = broker::kQueueModeGroup;
  e.error_message = "smtp 451";
  e.retry_count = 1;
  e.payload_json = R"({"amount":12})";
  e.created_at_us = 1741079726123456;
  e.failed_at_us = failed_at_us;
  return e;
}

struct DlqRoute : ::testing::Test, test::AdminRoutesFixture {};

}  // namespace

TEST(DlqQuery, DefaultsToEverythingFirstPage) {
  const auto q = parse_dlq_query(Tenant::default_tenant(), parse_query_string(""));
  EXPECT_EQ(q.queue, std::nullopt);
  EXPECT_EQ(q.consumer_group, std::nullopt);
  EXPECT_EQ(q.partition, std::nullopt);
  EXPECT_EQ(q.failed_from_ms, std::nullopt);
  EXPECT_EQ(q.failed_to_ms, std::nullopt);
  EXPECT_EQ(q.limit, 100);
  EXPECT_EQ(q.offset, 0);
}

TEST(DlqQuery, ReadsEveryFilterAndKeepsTheQueueModeGroupName) {
  const auto q = parse_dlq_query(Tenant::default_tenant(), parse_query_string(
      "queue=invoices&consumerGroup=__QUEUE_MODE__&partition=acct+7&from=2025-03-04T09%3A15%3A26.123Z"
      "&to=1741080000000&limit=5&offset=10"));
  EXPECT_EQ(q.queue, std::optional<std::string>("invoices"));
  EXPECT_EQ(q.consumer_group, std::optional<std::string>(broker::kQueueModeGroup));
  EXPECT_EQ(q.partition, std::optional<std::string>("acct 7"));
  EXPECT_EQ(q.failed_from_ms, std::optional<std::int64_t>(1741079726123));
  EXPECT_EQ(q.failed_to_ms, std::optional<std::int64_t>(1741080000000));
  EXPECT_EQ(q.limit, 5);
  EXPECT_EQ(q.offset, 10);
}

TEST(DlqQuery, EmptyValuesAreAbsentAndPagingIsClamped) {
  const auto q = parse_dlq_query(Tenant::default_tenant(), parse_query_string("queue=&consumerGroup=&from=&limit=0&offset=-3"));
  EXPECT_EQ(q.queue, std::nullopt);
  EXPECT_EQ(q.consumer_group, std::nullopt);
  EXPECT_EQ(q.failed_from_ms, std::nullopt);
  EXPECT_EQ(q.limit, 1);
  EXPECT_EQ(q.offset, 0);
  EXPECT_EQ(parse_dlq_query(Tenant::default_tenant(), parse_query_string("limit=999999")).limit, kMaxDlqPageSize);
  EXPECT_EQ(parse_dlq_query(Tenant::default_tenant(), parse_query_string("limit=abc")).limit, kDefaultDlqPageSize);
}

TEST(DlqQuery, AnUnreadableBoundIs400) {
  for (const char* query : {"from=yesterday", "to=2025-02-30T00:00:00Z"}) {
    try {
      parse_dlq_query(Tenant::default_tenant(), parse_query_string(query));
      ADD_FAILURE() << query << " was accepted";
    } catch (const HttpError& e) {
      EXPECT_EQ(e.status(), 400);
      EXPECT_NE(std::string(e.what()).find("ISO-8601"), std::string::npos) << e.what();
    }
  }
}

TEST(DlqRender, HasTheContractShape) {
  db::DlqPage page;
  page.entries.push_back(entry("inv-2", 1741079762551999));
  page.total = 7;
  db::DlqQuery query(Tenant::default_tenant());
  query.limit = 1;
  query.offset = 3;
  const auto body = nlohmann::json::parse(render_dlq_page(page, query));
  EXPECT_EQ(body["total"], 7);
  EXPECT_EQ(body["limit"], 1);
  EXPECT_EQ(body["offset"], 3);
  EXPECT_EQ(body["pagination"], nlohmann::json::parse(R"({"limit":1,"offset":3})"));
  ASSERT_EQ(body["messages"].size(), 1u);
  const auto& m = body["messages"][0];
  EXPECT_EQ(m["id"], "0195b7e2-0000-7000-8000-000000000001");
  EXPECT_EQ(m["transactionId"], "inv-2");
  EXPECT_EQ(m["partitionId"], "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2");
  EXPECT_EQ(m["queue"], "invoices");
  EXPECT_EQ(m["partition"], "acct-7");
  EXPECT_EQ(m["consumerGroup"], "__QUEUE_MODE__");
  EXPECT_EQ(m["errorMessage"], "smtp 451");
  EXPECT_EQ(m["retryCount"], 1);
  EXPECT_EQ(m["data"], nlohmann::json::parse(R"({"amount":12})"));
  EXPECT_TRUE(m["producerSub"].is_null());
  EXPECT_TRUE(m["traceId"].is_null());
  EXPECT_EQ(m["createdAt"], "2025-03-04T09:15:26.123Z");
  EXPECT_EQ(m["failedAt"], "2025-03-04T09:16:02.551Z");  // milliseconds, truncated
}

TEST(DlqRender, AnEmptyPageStillCarriesTheTotal) {
  db::DlqPage page;
  page.total = 2;
  db::DlqQuery query(Tenant::default_tenant());
  query.offset = 50;
  EXPECT_EQ(render_dlq_page(page, query),
            R"({"messages":[],"total":2,"limit":100,"offset":50,"pagination":{"limit":100,"offset":50}})");
}

TEST(DlqRender, NullPayloadsAndAbsentErrorsStayNull) {
  db::DlqPage page;
  page.entries.push_back(entry("t", 0));
  page.entries[0].payload_json = "null";
  page.entries[0].error_message.reset();
  page.total = 1;
  const auto m = nlohmann::json::parse(render_dlq_page(page, db::DlqQuery(Tenant::default_tenant())))["messages"][0];
  EXPECT_TRUE(m["data"].is_null());
  EXPECT_TRUE(m["errorMessage"].is_null());
}

TEST(DlqRender, AnOmittedPayloadIsNullWithTheMarker) {
  db::DlqPage page;
  page.entries.push_back(entry("kept", 2));
  page.entries.push_back(entry("omitted", 1));
  page.entries[1].payload_json = "null";
  page.entries[1].payload_omitted = true;
  page.total = 2;
  const auto body = nlohmann::json::parse(render_dlq_page(page, db::DlqQuery(Tenant::default_tenant())));
  EXPECT_FALSE(body["messages"][0].contains("payloadOmitted"));
  EXPECT_EQ(body["messages"][0]["data"], nlohmann::json::parse(R"({"amount":12})"));
  EXPECT_TRUE(body["messages"][1]["data"].is_null());
  EXPECT_EQ(body["messages"][1]["payloadOmitted"], true);
}

TEST(DlqQuery, CarriesThePayloadBudgetAndRefusesADeepOffset) {
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.list_max_payload_bytes = 12345;
  limits.list_max_offset = 50;
  EXPECT_EQ(parse_dlq_query(Tenant::default_tenant(), parse_query_string(""), limits).max_payload_bytes, 12345);
  EXPECT_EQ(parse_dlq_query(Tenant::default_tenant(), parse_query_string("offset=50"), limits).offset, 50);
  try {
    parse_dlq_query(Tenant::default_tenant(), parse_query_string("offset=51"), limits);
    ADD_FAILURE() << "offset 51 was accepted";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_NE(std::string(e.what()).find("QUEEN_LIST_MAX_OFFSET"), std::string::npos) << e.what();
  }
}

TEST_F(DlqRoute, PassesTheFiltersToTheDatabaseAndRendersThePage) {
  db.dlq_page.entries = {entry("new", 2'000'000), entry("old", 1'000'000)};
  db.dlq_page.total = 2;
  const Response r = call("GET", "/api/v1/dlq", "", "queue=invoices&partition=acct-7&limit=2");
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(db.dlq_calls.size(), 1u);
  EXPECT_EQ(db.dlq_calls[0].queue, std::optional<std::string>("invoices"));
  EXPECT_EQ(db.dlq_calls[0].partition, std::optional<std::string>("acct-7"));
  EXPECT_EQ(db.dlq_calls[0].limit, 2);
  const auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["total"], 2);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["transactionId"], "new");  // the database's order is kept
}

TEST_F(DlqRoute, BadBoundsAre400AndAnOutageIs503) {
  EXPECT_EQ(call("GET", "/api/v1/dlq", "", "from=soon").status, 400);
  EXPECT_TRUE(db.dlq_calls.empty());
  db.failure = db::DbError("timeout", "57014");
  EXPECT_EQ(call("GET", "/api/v1/dlq", "", "queue=q").status, 503);
}
