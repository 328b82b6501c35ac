#pragma once
// What this broker answers for in push's dedup (docs/storage.md): per
// partition, every transaction id the partition holds in the dedup window up
// to a seq, `verified`. A push none of whose transaction ids is among them
// names that seq to queen.push_messages (p_dedup), which then scans only the
// segments written after it: none while one broker feeds a partition, the other
// brokers' segments otherwise. A push with a transaction id the cache holds is
// sent without it, and PostgreSQL scans the whole window and decides. 64-bit
// hashes stand for transaction ids: a collision only costs that scan.
//
// A partition's seqs are followed from the push answers (queued rows carry
// their seq). When another broker's segments lie between what the cache holds
// and this push's segment, or the partition is new to the cache, learn()
// returns a Gap, filled from queen.dedup_keys. The cache holds at most
// `max_keys` transaction ids, dropping the least recently pushed partitions.
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "broker/types.h"
#include "db/procedure_types.h"
#include "db/procedures.h"

namespace queen::broker {

// The dedup identity of one push item.
struct DedupItem {
  std::string queue;
  std::string partition;
  std::string transaction_id;
};

// The dedup identities of `items`, in order.
std::vector<DedupItem> dedup_items_of(const std::vector<PushItem>& items);

// The transaction ids a budget of `megabytes` holds (a hash, its count, its
// place in the expiry list: about 64 bytes each).
constexpr std::size_t dedup_cache_keys(std::int64_t megabytes) {
  return static_cast<std::size_t>(megabytes) * 1024 * 1024 / 64;
}

class DedupCache {
 public:
  using Clock = std::chrono::steady_clock;

  // window: QUEEN_DEDUP_WINDOW_MS; max_keys 0: no cache (every push unvouched).
  DedupCache(std::chrono::milliseconds window, std::size_t max_keys);

  // Keys of partitions this cache does not answer for: fetched from the
  // database after a push (queen.dedup_keys).
  struct Gap {
    std::string entry;                  // the cache's key of the partition
    std::string partition_id;
    std::optional<std::int64_t> after;  // nullopt: the whole window
    std::int64_t until = 0;             // the pushed segment's end: verified once filled
    std::uint64_t epoch = 0;            // the entry's epoch when the gap was seen
  };

  // queen.push_messages' p_dedup for a push of `items` by `tenant`.
  std::string argument(const std::string& tenant, const std::vector<DedupItem>& items);
  // The answer of that push: its stored messages join their partitions.
  std::vector<Gap> learn(const std::string& tenant, const std::vector<db::PushRow>& rows);
  // The keys queen.dedup_keys returned for `gap`; `complete` false when they
  // were capped (the partition is then not answered for a while).
  void fill(const Gap& gap, const std::vector<db::DedupKeyRow>& keys, bool complete);

  std::int64_t window_ms() const { return window_.count(); }
  // The most keys one dedup_keys call should return (more: fill(..., false)).
  std::size_t max_keys() const { return max_keys_; }
  std::size_t size() const;

 private:
  struct Entry {
    std::string partition_id;
    std::optional<std::int64_t> verified;  // nullopt: answers for nothing yet
    std::unordered_map<std::uint64_t, int> counts;
    std::list<std::pair<Clock::time_point, std::uint64_t>> added;  // oldest first
    std::uint64_t epoch = 0;
    Clock::time_point skip_until{};  // a capped fill: not answered for until then
    std::list<std::string>::iterator recent;
  };

  Entry& touch(const std::string& key);
  void add(Entry& entry, const std::string& transaction_id, Clock::time_point at);
  void expire(Entry& entry, Clock::time_point now);
  void forget(Entry& entry);
  void evict_beyond_budget(const std::string& keep);

  const std::chrono::milliseconds window_;
  const std::size_t max_keys_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> recent_;  // most recently pushed first
  std::size_t keys_ = 0;
  std::uint64_t next_epoch_ = 1;
};

// One push_with_dedup call with what `cache` answers for, then the gaps its
// answer shows filled (a failed fill leaves the partition unanswered for).
std::vector<db::PushRow> push_with_dedup(db::Procedures& db, DedupCache& cache, const std::string& items_json,
                                         const db::PushOrigin& origin, const std::vector<DedupItem>& items);

}  // namespace queen::broker
