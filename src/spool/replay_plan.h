#pragma once
// Splitting one spool file into replay batches and lanes (pure).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "spool/spool_event.h"

namespace queen::spool {

// Indices into the file's records.
using ReplayBatch = std::vector<std::size_t>;
// [begin, end) of ReplayPlan::batches.
using BatchRun = std::pair<std::size_t, std::size_t>;

struct ReplayPlan {
  // At most max_batch records and max_batch_bytes bytes each (a record larger
  // than max_batch_bytes is a batch of its own). Inside a batch the records of one
  // (tenant, queue, partition) group are contiguous and in file order, the
  // groups of one tenant are next to each other, and groups come in order of
  // first appearance in the file.
  std::vector<ReplayBatch> batches;
  // Lanes: each group belongs to exactly one lane, so lanes may be stored
  // concurrently; the batches of a lane must be stored in order.
  std::vector<BatchRun> lanes;
};

// Spreads the groups over at most `lanes` lanes (each group, in order of first
// appearance, to the lane holding the fewest records so far), then cuts each
// lane's records, in file order, into batches: a batch closes at max_batch
// records, or when the next record would take it past max_batch_bytes
// (`bytes[i]` is record i's size; a record larger than the bound goes alone).
// Deterministic for a given file and options, which is what lets a retry skip
// the batches an earlier attempt stored. max_batch 0 and lanes 0 mean 1;
// max_batch_bytes 0 means no byte bound. `bytes` has one entry per group entry.
ReplayPlan plan_replay(const std::vector<ReplayGroupKey>& groups, const std::vector<std::uint64_t>& bytes,
                       std::size_t max_batch, std::uint64_t max_batch_bytes, std::size_t lanes);

// The same without a byte bound.
inline ReplayPlan plan_replay(const std::vector<ReplayGroupKey>& groups, std::size_t max_batch, std::size_t lanes) {
  return plan_replay(groups, std::vector<std::uint64_t>(groups.size(), 0), max_batch, 0, lanes);
}

}  // namespace queen::spool
