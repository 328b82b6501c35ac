#include "broker/dedup_cache.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "db/db_error.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

// Keys are kept this much past the window: the database stamps a message's
// created_at, this broker the moment it learns of it.
constexpr std::chrono::minutes kClockMargin{5};
// A partition whose window held more keys than the cache may is not answered
// for during this long (its pushes scan in SQL).
constexpr std::chrono::minutes kCappedRetry{1};

std::string entry_key(const std::string& tenant, const std::string& queue, const std::string& partition) {
  std::string key;
  key.reserve(tenant.size() + queue.size() + partition.size() + 2);
  key.append(tenant).push_back('\x1f');
  key.append(queue).push_back('\x1f');
  key.append(partition);
  return key;
}

std::uint64_t hash_of(const std::string& transaction_id) { return std::hash<std::string>{}(transaction_id); }

}  // namespace

std::vector<DedupItem> dedup_items_of(const std::vector<PushItem>& items) {
  std::vector<DedupItem> keys;
  keys.reserve(items.size());
  for (const auto& item : items) keys.push_back(DedupItem{item.queue, item.partition, item.transaction_id});
  return keys;
}

DedupCache::DedupCache(std::chrono::milliseconds window, std::size_t max_keys)
    : window_(window), max_keys_(max_keys) {}

std::size_t DedupCache::size() const {
  std::lock_guard lock(mutex_);
  return keys_;
}

DedupCache::Entry& DedupCache::touch(const std::string& key) {
  auto [it, created] = entries_.try_emplace(key);
  if (created) {
    recent_.push_front(key);
    it->second.recent = recent_.begin();
    it->second.epoch = next_epoch_++;
  } else {
    recent_.splice(recent_.begin(), recent_, it->second.recent);
  }
  return it->second;
}

void DedupCache::add(Entry& entry, const std::string& transaction_id, Clock::time_point at) {
  const std::uint64_t h = hash_of(transaction_id);
  ++entry.counts[h];
  entry.added.emplace_back(at, h);
  ++keys_;
}

void DedupCache::expire(Entry& entry, Clock::time_point now) {
  const auto horizon = now - window_ - kClockMargin;
  while (!entry.added.empty() && entry.added.front().first < horizon) {
    const auto h = entry.added.front().second;
    if (--entry.counts[h] == 0) entry.counts.erase(h);
    entry.added.pop_front();
    --keys_;
  }
}

void DedupCache::forget(Entry& entry) {
  keys_ -= entry.added.size();
  entry.added.clear();
  entry.counts.clear();
  entry.verified.reset();
  entry.epoch = next_epoch_++;
}

void DedupCache::evict_beyond_budget(const std::string& keep) {
  while (keys_ > max_keys_ && !recent_.empty() && recent_.back() != keep) {
    auto it = entries_.find(recent_.back());
    keys_ -= it->second.added.size();
    recent_.pop_back();
    entries_.erase(it);
  }
}

std::string DedupCache::argument(const std::string& tenant, const std::vector<DedupItem>& items) {
  std::string out = "{\"windowMs\":" + std::to_string(window_.count());
  if (max_keys_ == 0) return out + "}";
  // per partition: answered for unless one of its transaction ids is held
  std::map<std::string, bool> vouched;
  const auto now = Clock::now();
  {
    std::lock_guard lock(mutex_);
    for (const auto& item : items) {
      const std::string key = entry_key(tenant, item.queue, item.partition);
      auto it = entries_.find(key);
      if (it == entries_.end() || !it->second.verified || it->second.partition_id.empty() ||
          now < it->second.skip_until) {
        continue;
      }
      expire(it->second, now);
      auto [v, fresh] = vouched.try_emplace(key, true);
      if (it->second.counts.count(hash_of(item.transaction_id)) > 0) v->second = false;
    }
    out += ",\"after\":{";
    bool first = true;
    for (const auto& [key, yes] : vouched) {
      if (!yes) continue;
      const Entry& entry = entries_.at(key);
      if (!first) out += ',';
      first = false;
      util::append_json_string(out, entry.partition_id);
      out += ':' + std::to_string(*entry.verified);
    }
  }
  return out + "}}";
}

std::vector<DedupCache::Gap> DedupCache::learn(const std::string& tenant, const std::vector<db::PushRow>& rows) {
  std::vector<Gap> gaps;
  if (max_keys_ == 0) return gaps;
  struct Stored {
    std::string partition_id;
    std::int64_t base = 0, end = 0;
    std::vector<const std::string*> transaction_ids;
  };
  std::map<std::string, Stored> stored;  // by entry key
  for (const auto& row : rows) {
    if (row.status != "queued" || !row.seq || !row.partition_id) continue;
    auto [it, fresh] = stored.try_emplace(entry_key(tenant, row.queue_name, row.partition_name));
    Stored& s = it->second;
    if (fresh) {
      s.partition_id = *row.partition_id;
      s.base = s.end = *row.seq;
    }
    s.base = std::min(s.base, *row.seq);
    s.end = std::max(s.end, *row.seq);
    s.transaction_ids.push_back(&row.transaction_id);
  }
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  for (const auto& [key, s] : stored) {
    Entry& entry = touch(key);
    if (entry.partition_id != s.partition_id) {
      forget(entry);  // a partition of that name created again
      entry.partition_id = s.partition_id;
    }
    expire(entry, now);
    for (const auto* t : s.transaction_ids) add(entry, *t, now);
    if (entry.verified && *entry.verified == s.base - 1) {
      entry.verified = s.end;
    } else if (!entry.verified || *entry.verified < s.base - 1) {
      if (now >= entry.skip_until) gaps.push_back(Gap{key, s.partition_id, entry.verified, s.end, entry.epoch});
    }
    evict_beyond_budget(key);
  }
  return gaps;
}

void DedupCache::fill(const Gap& gap, const std::vector<db::DedupKeyRow>& keys, bool complete) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(gap.entry);
  if (it == entries_.end() || it->second.epoch != gap.epoch) return;  // evicted or reset meanwhile
  Entry& entry = it->second;
  const auto now = Clock::now();
  if (!complete) {
    forget(entry);
    entry.skip_until = now + kCappedRetry;
    return;
  }
  // What was answered for then must still be (verified only grows).
  if (gap.after && (!entry.verified || *entry.verified < *gap.after)) return;
  for (const auto& key : keys) add(entry, key.transaction_id, now);
  if (!entry.verified || *entry.verified < gap.until) entry.verified = gap.until;
  evict_beyond_budget(gap.entry);
}

std::vector<db::PushRow> push_with_dedup(db::Procedures& db, DedupCache& cache, const std::string& items_json,
                                         const db::PushOrigin& origin, const std::vector<DedupItem>& items) {
  const std::string& tenant = origin.tenant.name();
  std::vector<db::PushRow> rows = db.push_with_dedup(items_json, origin, cache.argument(tenant, items));
  for (const auto& gap : cache.learn(tenant, rows)) {
    try {
      const auto keys = db.dedup_keys(gap.partition_id, gap.after, cache.window_ms(),
                                      static_cast<int>(std::min<std::size_t>(cache.max_keys() + 1, 1 << 30)),
                                      origin.tenant);
      cache.fill(gap, keys, keys.size() <= cache.max_keys());
    } catch (const db::DbError&) {
      // the push is stored; the partition stays unanswered for until a later push fills it
    }
  }
  return rows;
}

}  // namespace queen::broker
