#pragma once
// Procedures implemented against PostgreSQL through the connection pool.
#include <atomic>
#include <memory>

#include "config/config.h"
#include "db/procedures.h"

namespace queen::db {

class ConnectionPool;

class Database final : public Procedures {
 public:
  explicit Database(const config::DbConfig& config);
  ~Database() override;

  ConfiguredQueue configure_queue(const std::string& queue, const std::string& namespace_name,
                                  const std::string& task, const std::string& options_json) override;
  std::vector<PushRow> push_messages(const std::string& items_json,
                                     const std::optional<std::string>& producer_sub) override;
  std::vector<PoppedMessage> pop_messages(const PopRequest& request) override;
  std::vector<AckRow> ack_messages(const std::string& acks_json,
                                   const std::optional<std::string>& consumer_group) override;
  LeaseExtension extend_lease(const std::string& lease_id, int seconds) override;
  bool set_system_flag(const std::string& key, bool enabled) override;
  bool get_system_flag(const std::string& key) override;
  std::chrono::microseconds ping() override;
  std::string run_transaction(const std::string& ops_json, const std::optional<std::string>& producer_sub) override;
  DlqPage list_dlq(const DlqQuery& query) override;
  bool delete_queue(const std::string& queue) override;

  PoolStats pool_stats() const override;
  // The pool itself, shared with the background loops' calls (timers, KV,
  // jobs) so that DB_POOL_SIZE bounds every connection this broker opens.
  ConnectionPool& pool() { return *pool_; }
  bool healthy() const override { return healthy_.load(std::memory_order_relaxed); }

 private:
  template <typename Fn>
  auto run(const char* what, Fn&& fn);

  std::unique_ptr<ConnectionPool> pool_;
  // Optimistic until the first call says otherwise; readiness pings anyway.
  std::atomic<bool> healthy_{true};
};

}  // namespace queen::db
