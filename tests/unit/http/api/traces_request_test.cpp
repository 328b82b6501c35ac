// Parsing and rendering of the trace body and the by-name listing.
#include "http/api/traces_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::kUpperCasePartition;
using queen::test::error_of;
using queen::test::status_of;

TEST(TraceBody, ReadsEveryFieldWithDefaults) {
  const auto trace = parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"inv-1","partitionId":")") + kUpperCasePartition +
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
  const std::string key = std::string(R"("transactionId":"t","partitionId":")") + kUpperCasePartition + "\"";
  EXPECT_EQ(parse_trace_body(Tenant::default_tenant(), "{" + key + R"(,"data":1,"traceNames":"solo"})")->trace_names_json, R"(["solo"])");
  const auto nulls = parse_trace_body(Tenant::default_tenant(), "{" + key + R"(,"data":1,"traceNames":null,"consumerGroup":null})");
  EXPECT_EQ(nulls->trace_names_json, "[]");
  EXPECT_EQ(nulls->consumer_group, broker::kQueueModeGroup);
}

TEST(TraceBody, Errors) {
  EXPECT_EQ(error_of([] { parse_trace_body(Tenant::default_tenant(), R"({"transactionId":"t","data":{}})"); }),
            "transactionId and partitionId are required");
  EXPECT_EQ(error_of([] { parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"t","partitionId":")") + kUpperCasePartition +
                                           R"(","data":null})"); }),
            "data is required");
  EXPECT_EQ(status_of([] { parse_trace_body(Tenant::default_tenant(), ""); }), 400);
  EXPECT_EQ(status_of([] { parse_trace_body(Tenant::default_tenant(), std::string(R"({"transactionId":"t","partitionId":")") + kUpperCasePartition +
                                            R"(","data":{},"traceNames":[1]})"); }),
            400);
  // A partition id that is not a UUID names no message: the route answers 404.
  EXPECT_FALSE(parse_trace_body(Tenant::default_tenant(), R"({"transactionId":"t","partitionId":"p-1","data":{}})").has_value());
}

TEST(TracesRender, ByNameSplicesEachPayload) {
  db::TracesByName page{R"({"total": 1, "pagination": {"limit": 100, "offset": 0}})",
                        {{R"({"id": "t1"})", R"({"n":1})", false}}};
  const auto body = nlohmann::json::parse(render_traces_by_name(page));
  EXPECT_EQ(body["traces"][0]["message_payload"]["n"], 1);
  EXPECT_EQ(body["total"], 1);
  EXPECT_EQ(body["pagination"]["limit"], 100);
}
