// Parsing and rendering of the message listing query and the payload splicing.
#include "http/api/messages_request.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "http/transport/query.h"
#include "request_test_support.h"

using namespace queen;
using namespace queen::http;
using queen::test::status_of;

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

TEST(MessagesRender, PayloadIsSplicedAsText) {
  db::ObjectWithPayload message{R"({"id": "x", "status": "pending"})", R"({"deep":[[[1]]]})", false};
  const auto parsed = nlohmann::json::parse(render_with_payload(message, "payload"));
  EXPECT_EQ(parsed["payload"]["deep"][0][0][0], 1);
  EXPECT_EQ(parsed["status"], "pending");
  EXPECT_EQ(nlohmann::json::parse(render_with_payload({"{}", "null", false}, "payload")),
            nlohmann::json({{"payload", nullptr}}));

}
