#include "metrics/queue_depths.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace queen::metrics;

namespace {

const char* const kSnapshot = R"({
  "queues": [{"tenant": "", "queue": "orders", "pending": 3, "leased": 1, "deadLetters": 2, "lagSeconds": 40}],
  "other": {"queues": 4, "pending": 10, "leased": 0, "deadLetters": 1, "lagSeconds": 7},
  "groups": [{"tenant": "", "queue": "orders", "group": "billing", "lagMessages": 3, "lagSeconds": 40}],
  "statsAgeSeconds": 12})";

}  // namespace

TEST(QueueDepths, ParsesTheSnapshot) {
  const QueueDepths d = parse_queue_depths(kSnapshot);
  ASSERT_EQ(d.queues.size(), 1u);
  EXPECT_EQ(d.queues[0].queue, "orders");
  EXPECT_EQ(d.queues[0].dead_letters, 2u);
  EXPECT_EQ(d.other_queues, 4u);
  EXPECT_EQ(d.other.pending, 10u);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].group, "billing");
  EXPECT_EQ(d.stats_age_seconds, 12u);
  EXPECT_THROW(parse_queue_depths("[]"), std::invalid_argument);
  EXPECT_THROW(parse_queue_depths(R"({"queues": [{"queue": 1}]})"), std::invalid_argument);
}

TEST(QueueDepths, RendersEveryQueueAndTheRestSummed) {
  const std::string text = render_queue_depths(parse_queue_depths(kSnapshot), 1700000000.25);
  for (const char* line :
       {"queen_queue_depth_refreshed_timestamp_seconds 1700000000.250\n", "queen_queue_stats_age_seconds 12\n",
        "# TYPE queen_queue_pending_messages gauge\n", "queen_queue_pending_messages{tenant=\"\",queue=\"orders\"} 3\n",
        "queen_queue_pending_messages{tenant=\"\",queue=\"_other\"} 10\n",
        "queen_queue_leased_messages{tenant=\"\",queue=\"orders\"} 1\n",
        "queen_queue_dead_letter_messages{tenant=\"\",queue=\"_other\"} 1\n",
        "queen_queue_lag_seconds{tenant=\"\",queue=\"orders\"} 40\n",
        "queen_consumer_group_lag_messages{tenant=\"\",queue=\"orders\",group=\"billing\"} 3\n",
        "queen_consumer_group_lag_messages{tenant=\"\",queue=\"_other\",group=\"_other\"} 10\n",
        "queen_consumer_group_lag_seconds{tenant=\"\",queue=\"_other\",group=\"_other\"} 7\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(QueueDepths, BeforeTheFirstReadOnlyTheTimestampIsShown) {
  EXPECT_EQ(render_queue_depths(QueueDepths{}, 0),
            "# HELP queen_queue_depth_refreshed_timestamp_seconds When this broker last read the queue figures below "
            "(Unix time; 0: not yet).\n# TYPE queen_queue_depth_refreshed_timestamp_seconds gauge\n"
            "queen_queue_depth_refreshed_timestamp_seconds 0.000\n");
}
