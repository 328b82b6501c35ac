#pragma once
// The stream queries of the official stream SDKs (docs/streams.md) as broker
// use cases: register a query, read a shard of its state, commit a cycle. The
// SDK runs every operator; the server keeps the state rows and commits each
// cycle (state ops, sink pushes, source ack) in one queen.stream_cycle call.
// A cycle is never spooled: without PostgreSQL it fails (503) and the SDK
// retries, and its lease (or idempotency key) makes the retry safe.
#include <optional>
#include <string>
#include <vector>

#include "broker/admission.h"
#include "broker/atomic_write.h"
#include "broker/payload_encryption.h"
#include "broker/pop_wakes.h"
#include "broker/tenant_quotas.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"

namespace queen::broker {

// POST /streams/v1/queries.
struct StreamQueryRegistration {
  std::string name;  // the SDK's queryId
  std::string source_queue;
  std::optional<std::string> sink_queue;
  std::string config_hash;
  bool reset = false;
};

// POST /streams/v1/state/get: the filters are ANDed; none reads the whole shard.
struct StreamStateRead {
  std::string query_id;
  std::string partition_id;
  std::vector<std::string> keys;               // empty: no key filter
  std::optional<std::string> key_prefix;       // an exact prefix
  std::optional<std::string> ripe_at_or_before_json;  // a JSON number, as sent
};

// POST /streams/v1/cycle. The state ops and the ack travel verbatim (the
// database judges them); the pushes are typed so they get exactly the
// treatment of /push (validation, minted transactionIds, encryption).
struct StreamCycleCommand {
  std::string query_id;
  std::string partition_id;
  std::optional<std::string> consumer_group;  // empty: queue mode
  bool release_lease = true;
  std::string state_ops_json = "[]";
  std::vector<PushItem> push_items;
  std::optional<std::string> ack_json;         // the ack object as sent; empty: no ack (an idle flush)
  std::optional<std::string> idempotency_key;  // our extension: a retried cycle with it changes nothing
};

// The procedures' request documents (stream_register_query, stream_state_get, stream_cycle).
std::string encode_stream_registration(const StreamQueryRegistration& registration);
std::string encode_stream_state_read(const StreamStateRead& read);
std::string encode_stream_cycle(const StreamCycleCommand& command);

// Reads a stream procedure's result: the push results stored now ("queued")
// and whether it acked. A result without a boolean `success` is a broken
// contract (parse_procedure_outcome: BrokerError Internal).
WriteSummary summarize_stream_result(const std::string& result_json);

// The stream routes: one procedure call each. Their business answers (a
// config_hash mismatch, a failed cycle) come back with success false; an
// outage is Unavailable, never spooled.
class Streams {
 public:
  // Everything given outlives the Streams.
  Streams(db::Procedures& db, flow::Arbiter& arbiter, const ReadGate& reads, PayloadEncryption& encryption,
          TenantQuotas& quotas, const CommitListeners& listeners, metrics::Metrics& metrics)
      : db_(db), arbiter_(arbiter), reads_(reads), metrics_(metrics),
        writer_(arbiter, encryption, quotas, listeners, metrics) {}

  ProcedureOutcome register_stream_query(const StreamQueryRegistration& registration, const Tenant& tenant);
  ProcedureOutcome read_stream_state(const StreamStateRead& read, const Tenant& tenant);  // the Read lane
  // One stream_cycle call, an AtomicWriter write.
  ProcedureOutcome run_stream_cycle(StreamCycleCommand command, const PushOrigin& origin);

 private:
  db::Procedures& db_;
  flow::Arbiter& arbiter_;
  const ReadGate& reads_;
  metrics::Metrics& metrics_;
  AtomicWriter writer_;
};

}  // namespace queen::broker
