#pragma once
// Splitting one spool file into replay batches (pure).
#include <cstddef>
#include <utility>
#include <vector>

#include "spool/spool_event.h"

namespace queen::spool {

// Indices into the file's records.
using ReplayBatch = std::vector<std::size_t>;

// Groups records by (tenant, queue, partition) in order of each group's first
// appearance, keeps file order inside a group, and cuts each group into
// batches of at most max_batch records. Deterministic for a given file, which
// is what lets a retry skip the batches an earlier attempt stored.
// max_batch 0 is treated as 1.
std::vector<ReplayBatch> plan_replay_batches(const std::vector<ReplayGroupKey>& groups, std::size_t max_batch);

// [begin, end) ranges of `batches` (a plan_replay_batches result for `groups`)
// that belong to one group, in plan order. A group's batches must be stored in
// order; different groups may be stored concurrently.
using BatchRun = std::pair<std::size_t, std::size_t>;
std::vector<BatchRun> group_batch_runs(const std::vector<ReplayBatch>& batches,
                                       const std::vector<ReplayGroupKey>& groups);

}  // namespace queen::spool
