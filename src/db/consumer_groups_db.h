#pragma once
// Typed calls of the consumer-group administration procedures
// (sql/queen/*consumer_group*.sql, docs/procedures.md,
// "Consumer-group administration"). Failures throw DbError; bad arguments are
// SQLSTATE 22023. `tenant` everywhere: whose queues the call sees ("" = the
// default tenant).
#include <cstdint>
#include <optional>
#include <string>

#include "tenant/tenant.h"

namespace queen::db {

class ProcedureRunner;

// queen.seek_partition_to_end.
struct PartitionSeek {
  bool partition_found = false;
  std::optional<std::int64_t> cursor_moved_to_us;  // creation of the message the cursor is on; empty: none
};

class ConsumerGroupProcedures {
 public:
  virtual ~ConsumerGroupProcedures() = default;
  // The listings, as the JSON text the procedures build (the wire shapes).
  virtual std::string list(const Tenant& tenant) = 0;
  virtual std::string lagging(std::int64_t min_lag_seconds, const Tenant& tenant) = 0;
  virtual std::string detail(const std::string& group, const Tenant& tenant) = 0;
  // queue empty: every queue of the tenant. Returns the cursor rows removed.
  virtual int remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
                     const Tenant& tenant) = 0;
  // start_at: an ISO-8601 timestamp PostgreSQL parses. Returns the records rewritten.
  virtual int set_subscription_start(const std::string& group, const std::string& start_at,
                                     const Tenant& tenant) = 0;
  // at: an ISO-8601 timestamp, ignored when to_end. Returns the partitions moved.
  virtual int seek(const std::string& group, const std::string& queue, bool to_end,
                   const std::optional<std::string>& at, const Tenant& tenant) = 0;
  virtual PartitionSeek seek_partition_to_end(const std::string& group, const std::string& queue,
                                              const std::string& partition, const Tenant& tenant) = 0;
};

class ConsumerGroupsDb final : public ConsumerGroupProcedures {
 public:
  explicit ConsumerGroupsDb(ProcedureRunner& runner) : runner_(runner) {}

  std::string list(const Tenant& tenant) override;
  std::string lagging(std::int64_t min_lag_seconds, const Tenant& tenant) override;
  std::string detail(const std::string& group, const Tenant& tenant) override;
  int remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
             const Tenant& tenant) override;
  int set_subscription_start(const std::string& group, const std::string& start_at,
                             const Tenant& tenant) override;
  int seek(const std::string& group, const std::string& queue, bool to_end, const std::optional<std::string>& at,
           const Tenant& tenant) override;
  PartitionSeek seek_partition_to_end(const std::string& group, const std::string& queue, const std::string& partition,
                                      const Tenant& tenant) override;

 private:
  ProcedureRunner& runner_;
};

}  // namespace queen::db
