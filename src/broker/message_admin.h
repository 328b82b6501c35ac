#pragma once
// Message administration (docs/api-extensions.md): traces, the message
// list/detail/delete, queue clearing and the partition listing. Each is one
// procedure call (the reads through the Read lane, docs/flow-control.md);
// what this adds is what the database cannot do: decrypting the payloads it
// shows (docs/encryption.md). JSON results are the procedures' wire shapes.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "broker/admission.h"
#include "broker/broker_error.h"
#include "broker/payload_encryption.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"

namespace queen::broker {

class MessageAdmin {
 public:
  // Everything given outlives the MessageAdmin.
  MessageAdmin(db::Procedures& db, const ReadGate& reads, const PayloadEncryption& encryption,
               metrics::Metrics& metrics)
      : db_(db), reads_(reads), encryption_(encryption), metrics_(metrics) {}

  std::optional<std::string> record_trace(const TraceRecord& trace);  // trace id; nullopt: no such message
  std::string message_traces(const std::string& partition_id, const std::string& transaction_id,
                             const Tenant& tenant);
  db::TracesByName traces_by_name(const std::string& trace_name, int limit, int offset, const Tenant& tenant,
                                  std::int64_t max_payload_bytes);
  std::string trace_names(int limit, int offset, const Tenant& tenant);
  std::string list_messages(const MessageListQuery& query);
  std::optional<db::ObjectWithPayload> get_message(const std::string& partition_id,
                                                   const std::string& transaction_id,
                                                   const Tenant& tenant);  // nullopt: no such message
  bool delete_message(const std::string& partition_id, const std::string& transaction_id, const Tenant& tenant);
  std::optional<std::int64_t> clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                          const Tenant& tenant);  // nullopt: no such queue/partition
  std::string list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                              const Tenant& tenant);

 private:
  // call() under the Read lane, a database failure translated.
  template <typename Call>
  auto read(Call&& call) {
    return translating_db_failures(metrics_, [&] { return reads_.run(std::forward<Call>(call)); });
  }

  db::Procedures& db_;
  const ReadGate& reads_;
  const PayloadEncryption& encryption_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
