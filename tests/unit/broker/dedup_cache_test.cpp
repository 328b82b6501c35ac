#include "broker/dedup_cache.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;

namespace {

db::PushRow queued(const std::string& partition_id, const std::string& txid, std::int64_t seq,
                   const std::string& partition = "p") {
  db::PushRow row;
  row.status = "queued";
  row.partition_id = partition_id;
  row.queue_name = "q";
  row.partition_name = partition;
  row.transaction_id = txid;
  row.seq = seq;
  return row;
}

db::PushRow duplicate(const std::string& partition_id, const std::string& txid) {
  db::PushRow row = queued(partition_id, txid, 0);
  row.status = "duplicate";
  row.seq.reset();
  return row;
}

std::vector<DedupItem> items(std::initializer_list<const char*> txids, const std::string& partition = "p") {
  std::vector<DedupItem> out;
  for (const char* t : txids) out.push_back(DedupItem{"q", partition, t});
  return out;
}

// The seq the argument names for a partition id, or -1 when it names none.
std::int64_t after(const std::string& argument, const std::string& partition_id) {
  const auto json = nlohmann::json::parse(argument);
  if (!json.contains("after") || !json["after"].contains(partition_id)) return -1;
  return json["after"][partition_id].get<std::int64_t>();
}

db::DedupKeyRow key(std::int64_t seq, const std::string& txid) { return db::DedupKeyRow{seq, txid}; }

}  // namespace

TEST(DedupCache, ANewPartitionIsUnansweredUntilItsWindowIsLoaded) {
  DedupCache cache(1h, 1000);
  EXPECT_EQ(nlohmann::json::parse(cache.argument("", items({"a"})))["windowMs"], 3600000);
  EXPECT_EQ(after(cache.argument("", items({"a"})), "P1"), -1) << "nothing known: PostgreSQL scans";
  const auto gaps = cache.learn("", {queued("P1", "a", 5)});
  ASSERT_EQ(gaps.size(), 1u) << "the window before seq 5 is unknown";
  EXPECT_FALSE(gaps[0].after);
  EXPECT_EQ(gaps[0].until, 5);
  EXPECT_EQ(after(cache.argument("", items({"b"})), "P1"), -1) << "still unanswered before the fill";
  cache.fill(gaps[0], {key(3, "old"), key(5, "a")}, true);
  EXPECT_EQ(after(cache.argument("", items({"b"})), "P1"), 5);
}

TEST(DedupCache, ConsecutiveSegmentsExtendWhatIsAnsweredFor) {
  DedupCache cache(1h, 1000);
  cache.fill(cache.learn("", {queued("P1", "a", 1)}).at(0), {key(1, "a")}, true);
  EXPECT_TRUE(cache.learn("", {queued("P1", "b", 2), queued("P1", "c", 3)}).empty()) << "2..3 follows 1";
  EXPECT_EQ(after(cache.argument("", items({"d"})), "P1"), 3);
}

TEST(DedupCache, AHeldTransactionIdLeavesTheDecisionToPostgres) {
  DedupCache cache(1h, 1000);
  cache.fill(cache.learn("", {queued("P1", "a", 1)}).at(0), {key(1, "a")}, true);
  EXPECT_EQ(after(cache.argument("", items({"x", "a"})), "P1"), -1) << "a may be a duplicate";
  EXPECT_EQ(after(cache.argument("", items({"x", "y"})), "P1"), 1);
}

TEST(DedupCache, AnotherBrokersSegmentsAreAGapToFill) {
  DedupCache cache(1h, 1000);
  cache.fill(cache.learn("", {queued("P1", "a", 1)}).at(0), {key(1, "a")}, true);
  const auto gaps = cache.learn("", {queued("P1", "d", 4)});  // 2..3 written elsewhere
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].after, 1);
  EXPECT_EQ(gaps[0].until, 4);
  EXPECT_EQ(after(cache.argument("", items({"z"})), "P1"), 1) << "still answering for what it holds";
  cache.fill(gaps[0], {key(2, "b"), key(3, "c")}, true);
  EXPECT_EQ(after(cache.argument("", items({"z"})), "P1"), 4);
  EXPECT_EQ(after(cache.argument("", items({"c"})), "P1"), -1) << "the other broker's c is held now";
}

TEST(DedupCache, ACappedFillLeavesThePartitionUnanswered) {
  DedupCache cache(1h, 2);
  const auto gaps = cache.learn("", {queued("P1", "a", 9)});
  cache.fill(gaps.at(0), {key(1, "x"), key(2, "y"), key(3, "z")}, false);
  EXPECT_EQ(after(cache.argument("", items({"b"})), "P1"), -1);
  EXPECT_TRUE(cache.learn("", {queued("P1", "b", 10)}).empty()) << "no new fill is asked for a while";
}

TEST(DedupCache, DuplicatesAndOtherTenantsAreKeptApart) {
  DedupCache cache(1h, 1000);
  EXPECT_TRUE(cache.learn("", {duplicate("P1", "a")}).empty()) << "nothing stored, nothing learnt";
  cache.fill(cache.learn("acme", {queued("P2", "a", 1)}).at(0), {key(1, "a")}, true);
  EXPECT_EQ(after(cache.argument("acme", items({"b"})), "P2"), 1);
  EXPECT_EQ(after(cache.argument("", items({"b"})), "P2"), -1) << "the default tenant's q/p is another partition";
}

TEST(DedupCache, TheBudgetDropsTheLeastRecentlyPushedPartition) {
  DedupCache cache(1h, 3);
  cache.fill(cache.learn("", {queued("P1", "a", 1, "p1")}).at(0), {key(1, "a")}, true);
  cache.fill(cache.learn("", {queued("P2", "b", 1, "p2")}).at(0), {key(1, "b")}, true);
  cache.fill(cache.learn("", {queued("P3", "c", 1, "p3")}).at(0), {key(1, "c")}, true);
  EXPECT_LE(cache.size(), 3u);
  EXPECT_EQ(after(cache.argument("", items({"z"}, "p1")), "P1"), -1) << "p1 was dropped";
  EXPECT_EQ(after(cache.argument("", items({"z"}, "p3")), "P3"), 1);
}

TEST(DedupCache, NoBudgetNoAnswers) {
  DedupCache cache(1h, 0);
  EXPECT_TRUE(cache.learn("", {queued("P1", "a", 1)}).empty());
  EXPECT_EQ(after(cache.argument("", items({"b"})), "P1"), -1);
  EXPECT_EQ(dedup_cache_keys(64), 1048576u);
}
