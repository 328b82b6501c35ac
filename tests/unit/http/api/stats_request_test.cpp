// The query parameters of the status, resources and analytics routes, as their procedures get them.
#include "http/api/stats_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/transport/query.h"

using namespace queen::http;

namespace {

Request request_with(const std::string& query, const std::string& queue = "") {
  Request r;
  r.query = parse_query_string(query);
  if (!queue.empty()) r.params["queue"] = queue;
  return r;
}

nlohmann::json params_of(const Request& request, const StatsParams& params) {
  return nlohmann::json::parse(stats_params_json(request, params, queen::config::Config::defaults().limits));
}

}  // namespace

TEST(StatsParams, TimesBecomeEpochMillisecondsAndOnlyAcceptedNamesPass) {
  const auto p = params_of(request_with("from=2025-03-01T00:00:00Z&to=1000&queue=q1&task=t&hostname=h"),
                           {{"from", "to", "queue"}});
  EXPECT_EQ(p, nlohmann::json::parse(R"({"fromMs": 1740787200000, "toMs": 1000, "queue": "q1"})"));
}

TEST(StatsParams, EmptyValuesAreAbsent) {
  EXPECT_EQ(params_of(request_with("from=&queue="), {{"from", "queue"}}), nlohmann::json::object());
}

TEST(StatsParams, PagingHasItsDefaultAndIsClamped) {
  EXPECT_EQ(params_of(request_with(""), {{}, 50}), nlohmann::json::parse(R"({"limit": 50, "offset": 0})"));
  EXPECT_EQ(params_of(request_with("limit=abc&offset=-4"), {{}, 100}),
            nlohmann::json::parse(R"({"limit": 100, "offset": 0})"));
  EXPECT_EQ(params_of(request_with("limit=999999"), {{}, 100})["limit"], kMaxStatsPageSize);
  EXPECT_EQ(params_of(request_with("limit=5"), {{}, 0}), nlohmann::json::object()) << "no paging: no limit";
}

TEST(StatsParams, TheQueueOfThePathIsPassed) {
  EXPECT_EQ(params_of(request_with("includePartitions=true", "my queue"), {{}, 0, true}),
            nlohmann::json::parse(R"({"queue": "my queue"})"));
}

TEST(StatsParams, AnUnreadableTimeIs400) {
  try {
    params_of(request_with("to=yesterday"), {{"from", "to"}});
    ADD_FAILURE() << "accepted";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(std::string(e.what()), "to must be an ISO-8601 timestamp or epoch milliseconds");
  }
}
