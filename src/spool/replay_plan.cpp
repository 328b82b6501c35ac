#include "spool/replay_plan.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace queen::spool {
namespace {

// Position of each record's group in order of first appearance.
std::vector<std::size_t> group_ranks(const std::vector<ReplayGroupKey>& groups, std::vector<std::size_t>& sizes) {
  std::map<ReplayGroupKey, std::size_t> rank_of;
  std::vector<std::size_t> ranks;
  ranks.reserve(groups.size());
  for (const auto& key : groups) {
    const auto [it, inserted] = rank_of.try_emplace(key, sizes.size());
    if (inserted) sizes.push_back(0);
    ++sizes[it->second];
    ranks.push_back(it->second);
  }
  return ranks;
}

// Lane of each group: the one with the fewest records so far (the lowest on a tie).
std::vector<std::size_t> lane_of_groups(const std::vector<std::size_t>& sizes, std::size_t lanes) {
  std::vector<std::size_t> load(lanes, 0);
  std::vector<std::size_t> lane_of(sizes.size());
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    const auto lightest = std::min_element(load.begin(), load.end());
    lane_of[g] = static_cast<std::size_t>(lightest - load.begin());
    *lightest += sizes[g];
  }
  return lane_of;
}

// [begin, end) ranges of one lane's records (indices in file order), one per batch.
std::vector<std::pair<std::size_t, std::size_t>> cut_batches(const std::vector<std::size_t>& records,
                                                             const std::vector<std::uint64_t>& bytes,
                                                             std::size_t max_batch, std::uint64_t max_batch_bytes) {
  max_batch = std::max<std::size_t>(max_batch, 1);
  std::vector<std::pair<std::size_t, std::size_t>> cuts;
  std::size_t begin = 0;
  std::uint64_t batch_bytes = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::uint64_t next = bytes[records[i]];
    const bool full = i - begin == max_batch;
    const bool over = max_batch_bytes != 0 && i > begin && batch_bytes + next > max_batch_bytes;
    if (full || over) {
      cuts.emplace_back(begin, i);
      begin = i;
      batch_bytes = 0;
    }
    batch_bytes += next;
  }
  if (begin < records.size()) cuts.emplace_back(begin, records.size());
  return cuts;
}

}  // namespace

ReplayPlan plan_replay(const std::vector<ReplayGroupKey>& groups, const std::vector<std::uint64_t>& bytes,
                       std::size_t max_batch, std::uint64_t max_batch_bytes, std::size_t lanes) {
  if (bytes.size() != groups.size()) throw std::invalid_argument("plan_replay: one size per record");
  std::vector<std::size_t> sizes;
  const std::vector<std::size_t> ranks = group_ranks(groups, sizes);
  lanes = std::min(std::max<std::size_t>(lanes, 1), std::max<std::size_t>(sizes.size(), 1));
  const std::vector<std::size_t> lane_of = lane_of_groups(sizes, lanes);

  std::vector<std::vector<std::size_t>> lane_records(lanes);
  for (std::size_t i = 0; i < groups.size(); ++i) lane_records[lane_of[ranks[i]]].push_back(i);

  ReplayPlan plan;
  for (const auto& records : lane_records) {
    const std::size_t begin = plan.batches.size();
    for (const auto& [first, last] : cut_batches(records, bytes, max_batch, max_batch_bytes)) {
      ReplayBatch batch(records.begin() + static_cast<std::ptrdiff_t>(first),
                        records.begin() + static_cast<std::ptrdiff_t>(last));
      // Stable: file order is kept inside each group.
      std::stable_sort(batch.begin(), batch.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(groups[a].tenant, ranks[a]) < std::tie(groups[b].tenant, ranks[b]);
      });
      plan.batches.push_back(std::move(batch));
    }
    if (plan.batches.size() > begin) plan.lanes.emplace_back(begin, plan.batches.size());
  }
  return plan;
}

}  // namespace queen::spool
