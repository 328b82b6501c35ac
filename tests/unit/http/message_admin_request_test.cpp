// Message administration: parsing of the traces, messages and DLQ-admin
// requests, and the payload splicing of the renderers.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "http/message_admin_request.h"
#include "http/query.h"

using namespace queen;
using namespace queen::http;

namespace {

constexpr const char* kPartition = "A1C9D7F0-8E2B-4A4A-B7DE-2F61A1F0C9A2";

int status_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const HttpError& e) {
    return e.status();
  }
  return 0;
}

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const HttpError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TraceBody, ReadsEveryFieldWithDefaults) {
  const auto trace = parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"inv-1","partitionId":")") + kPartition +
                                      R"(","data":{"step":"started"},"traceNames":["a","b"]})");
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ(trace->partition_id, "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2");
  EXPECT_EQ(trace->transaction_id, "inv-1");
  EXPECT_EQ(trace->data_json, R"({"step":"started"})");
  EXPECT_EQ(trace->trace_names_json, R"(["a","b"])");
  EXPECT_EQ(trace->event_type, "info");
  EXPECT_EQ(trace->consumer_group, broker::kQueueModeGroup);
  EXPECT_FALSE(trace->worker_id.has_value());
}

TEST(TraceBody, OneNameNullNamesAndNullGroup) {
  const std::string key = std::string(R"("transactionId":"t","partitionId":")") + kPartition + "\"";
  EXPECT_EQ(parse_trace_body(Tenant::default_tenant(), "{" + key + R"(,"data":1,"traceNames":"solo"})")->trace_names_json, R"(["solo"])");
  const auto nulls = parse_trace_body(Tenant::default_tenant(), "{" + key + R"(,"data":1,"traceNames":null,"consumerGroup":null})");
  EXPECT_EQ(nulls->trace_names_json, "[]");
  EXPECT_EQ(nulls->consumer_group, broker::kQueueModeGroup);
}

TEST(TraceBody, Errors) {
  EXPECT_EQ(error_of([] { parse_trace_body(Tenant::default_tenant(), R"({"transactionId":"t","data":{}})"); }),
            "transactionId and partitionId are required");
  EXPECT_EQ(error_of([] { parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"t","partitionId":")") + kPartition +
                                           R"(","data":null})"); }),
            "data is required");
  EXPECT_EQ(status_of([] { parse_trace_body(Tenant::default_tenant(), ""); }), 400);
  EXPECT_EQ(status_of([] { parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"t","partitionId":")") + kPartition +
                                            R"(","data":{},"traceNames":[1]})"); }),
            400);
  // A partition id that is not a UUID names no message: the route answers 404.
  EXPECT_FALSE(parse_trace_body(Tenant::default_tenant(), R"({"transactionId":"t","partitionId":"p-1","data":{}})").has_value());
}

TEST(MessageListQuery, FiltersPagingAndErrors) {
  const auto q = parse_message_list_query(Tenant::default_tenant(), 
      parse_query_string("queue=q&partition=p&ns=billing&task=t&status=dead_letter&from=1000&limit=5000&offset=-3"));
  EXPECT_EQ(q.queue, "q");
  EXPECT_EQ(q.partition, "p");
  EXPECT_EQ(q.namespace_name, "billing");
  EXPECT_EQ(q.task, "t");
  EXPECT_EQ(q.status, "dead_letter");
  EXPECT_EQ(q.from_ms, 1000);
  EXPECT_FALSE(q.to_ms.has_value());
  EXPECT_EQ(q.limit, kMaxAdminPageSize);
  EXPECT_EQ(q.offset, 0);
  EXPECT_EQ(parse_message_list_query(Tenant::default_tenant(), parse_query_string("")).limit, 200);
  EXPECT_EQ(status_of([] { parse_message_list_query(Tenant::default_tenant(), parse_query_string("status=weird")); }), 400);
  EXPECT_EQ(status_of([] { parse_message_list_query(Tenant::default_tenant(), parse_query_string("from=yesterday")); }), 400);
}

TEST(DlqSelection, QueueIsRequiredAndFiltersAreRead) {
  EXPECT_EQ(error_of([] { parse_dlq_selection_body(Tenant::default_tenant(), "{}"); }), "queue is required");
  EXPECT_EQ(error_of([] { parse_dlq_selection_query(Tenant::default_tenant(), parse_query_string("queue=")); }), "queue is required");
  const auto s = parse_dlq_selection_body(Tenant::default_tenant(), 
      R"({"queue":"q","consumerGroup":null,"partition":"p","from":"2025-03-04T09:15:26Z","to":2000})");
  EXPECT_EQ(s.queue, "q");
  EXPECT_FALSE(s.consumer_group.has_value());
  EXPECT_EQ(s.partition, "p");
  EXPECT_TRUE(s.failed_from_ms.has_value());
  EXPECT_EQ(s.failed_to_ms, 2000);
  EXPECT_EQ(status_of([] { parse_dlq_selection_body(Tenant::default_tenant(), R"({"queue":"q","to":true})"); }), 400);
  EXPECT_EQ(status_of([] { parse_dlq_selection_body(Tenant::default_tenant(), R"({"queue":"q","from":"yesterday"})"); }), 400);
  EXPECT_FALSE(parse_dlq_message_selection(Tenant::default_tenant(), "nope", std::nullopt).has_value());
  EXPECT_EQ(parse_dlq_message_selection(Tenant::default_tenant(), kPartition, std::string("g"))->consumer_group, "g");
  EXPECT_EQ(parse_dlq_group_body(""), std::nullopt);
  EXPECT_EQ(parse_dlq_group_body(R"({"consumerGroup":"g1"})"), "g1");
}

TEST(Render, PayloadIsSplicedAsText) {
  db::ObjectWithPayload message{R"({"id": "x", "status": "pending"})", R"({"deep":[[[1]]]})", false};
  const auto parsed = nlohmann::json::parse(render_with_payload(message, "payload"));
  EXPECT_EQ(parsed["payload"]["deep"][0][0][0], 1);
  EXPECT_EQ(parsed["status"], "pending");
  EXPECT_EQ(nlohmann::json::parse(render_with_payload({"{}", "null", false}, "payload")),
            nlohmann::json({{"payload", nullptr}}));

  db::TracesByName page{R"({"total": 1, "pagination": {"limit": 100, "offset": 0}})",
                        {{R"({"id": "t1"})", R"({"n":1})", false}}};
  const auto body = nlohmann::json::parse(render_traces_by_name(page));
  EXPECT_EQ(body["traces"][0]["message_payload"]["n"], 1);
  EXPECT_EQ(body["total"], 1);
  EXPECT_EQ(body["pagination"]["limit"], 100);
}
