// deliverAt on push items: accepted forms, normalization and the 400.
#include <gtest/gtest.h>

#include "broker/encoding.h"
#include "http/api/push_request.h"
#include "http/transport/http_types.h"

using namespace queen;

namespace {

std::optional<std::int64_t> deliver_at_of(const std::string& item_json) {
  return http::parse_push_body(R"({"items": [)" + item_json + "]}").at(0).deliver_at_ms;
}

std::string error_of(const std::string& item_json) {
  try {
    http::parse_push_body(R"({"items": [)" + item_json + "]}");
  } catch (const http::HttpError& e) {
    return std::to_string(e.status()) + " " + e.what();
  }
  return "";
}

}  // namespace

TEST(DeliverAtParsing, AbsentOrNullIsAPlainPush) {
  EXPECT_FALSE(deliver_at_of(R"({"queue": "q"})"));
  EXPECT_FALSE(deliver_at_of(R"({"queue": "q", "deliverAt": null})"));
}

TEST(DeliverAtParsing, AcceptsEpochMillisAndIso8601) {
  EXPECT_EQ(deliver_at_of(R"({"queue": "q", "deliverAt": 1741079726123})"), 1741079726123);
  EXPECT_EQ(deliver_at_of(R"({"queue": "q", "deliverAt": "1741079726123"})"), 1741079726123);
  EXPECT_EQ(deliver_at_of(R"({"queue": "q", "deliverAt": "2025-03-04T09:15:26.123Z"})"), 1741079726123);
  EXPECT_EQ(deliver_at_of(R"({"queue": "q", "deliverAt": "2025-03-04T11:15:26.123+02:00"})"), 1741079726123);
}

TEST(DeliverAtParsing, RefusesAnythingElseWithOneMessage) {
  const std::string expected = "400 push item 0: deliverAt must be an ISO-8601 timestamp or epoch milliseconds";
  for (const char* item : {R"({"queue": "q", "deliverAt": "tomorrow"})", R"({"queue": "q", "deliverAt": -1})",
                           R"({"queue": "q", "deliverAt": 1.5})", R"({"queue": "q", "deliverAt": true})",
                           R"({"queue": "q", "deliverAt": {"at": 1}})", R"({"queue": "q", "deliverAt": ""})",
                           R"({"queue": "q", "deliverAt": "2025-02-30T00:00:00Z"})",
                           R"({"queue": "q", "deliverAt": 99999999999999999})"}) {
    EXPECT_EQ(error_of(item), expected) << item;
  }
}

TEST(DeliverAtParsing, TheProcedureReceivesEpochMillis) {
  broker::PushItem item;
  item.queue = "q";
  item.transaction_id = "t";
  item.deliver_at_ms = 1741079726123;
  EXPECT_NE(broker::encode_push_item(item).find(R"("deliverAt":1741079726123)"), std::string::npos)
      << broker::encode_push_item(item);
  item.deliver_at_ms.reset();
  EXPECT_EQ(broker::encode_push_item(item).find("deliverAt"), std::string::npos);
}
