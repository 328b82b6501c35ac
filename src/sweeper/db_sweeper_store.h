#pragma once
// The sweeper's store backed by the timer and KV procedures.
#include "db/kv_db.h"
#include "db/timers_db.h"
#include "sweeper/sweeper.h"

namespace queen::sweeper {

class DbSweeperStore final : public SweeperStore {
 public:
  DbSweeperStore(db::TimersDb& timers, db::KvDb& kv) : timers_(timers), kv_(kv) {}

  std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms) override {
    return timers_.claim_due_timers(server_id, limit, lease_ms);
  }
  int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) override {
    return timers_.fire_timers(server_id, ids);
  }
  std::optional<std::int64_t> ms_until_next_timer() override { return timers_.ms_until_next_timer(); }
  int prune_expired_kv(int limit) override { return kv_.prune_expired(limit); }

 private:
  db::TimersDb& timers_;
  db::KvDb& kv_;
};

}  // namespace queen::sweeper
