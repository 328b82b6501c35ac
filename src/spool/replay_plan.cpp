#include "spool/replay_plan.h"

#include <algorithm>
#include <map>

namespace queen::spool {

std::vector<ReplayBatch> plan_replay_batches(const std::vector<ReplayGroupKey>& groups, std::size_t max_batch) {
  max_batch = std::max<std::size_t>(max_batch, 1);
  std::map<ReplayGroupKey, std::size_t> group_slot;  // key -> position in members
  std::vector<std::vector<std::size_t>> members;     // per group, in order of first appearance
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto [it, inserted] = group_slot.try_emplace(groups[i], members.size());
    if (inserted) members.emplace_back();
    members[it->second].push_back(i);
  }
  std::vector<ReplayBatch> batches;
  for (const auto& group : members) {
    for (std::size_t start = 0; start < group.size(); start += max_batch) {
      const std::size_t end = std::min(group.size(), start + max_batch);
      batches.emplace_back(group.begin() + static_cast<std::ptrdiff_t>(start),
                           group.begin() + static_cast<std::ptrdiff_t>(end));
    }
  }
  return batches;
}

std::vector<BatchRun> group_batch_runs(const std::vector<ReplayBatch>& batches,
                                       const std::vector<ReplayGroupKey>& groups) {
  std::vector<BatchRun> runs;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= batches.size(); ++i) {
    // plan_replay_batches emits each group's batches back to back, so a group
    // starts where the key of a batch's first record changes.
    if (i == batches.size() || !(groups[batches[i].front()] == groups[batches[begin].front()])) {
      runs.emplace_back(begin, i);
      begin = i;
    }
  }
  return runs;
}

}  // namespace queen::spool
