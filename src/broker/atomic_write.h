#pragma once
// What a transaction and a stream cycle share: one all-or-nothing procedure
// call that stores pushed items beside other operations (acks, state ops).
// Its pushes get the treatment of /push (minted transactionIds, the tenant's
// quotas, sealed payloads). It runs on a Push-lane slot and is never spooled:
// without PostgreSQL it answers 503, and the client's retry is safe because
// nothing committed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/payload_encryption.h"
#include "broker/pop_wakes.h"
#include "broker/tenant_quotas.h"
#include "broker/types.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"

namespace queen::broker {

// A procedure's JSON answer, verbatim, and whether it says success.
struct ProcedureOutcome {
  std::string result_json;
  bool success = false;
};

// What a write's result says, for the work after its commit.
struct WriteSummary {
  bool success = false;
  std::size_t pushed = 0;  // messages it stored
  std::size_t acked = 0;   // acks it made
};

struct WriteResult {
  std::string result_json;  // the procedure's result, verbatim
  WriteSummary summary;
};

// A procedure's answer as ProcedureOutcome reads it: a JSON object with a
// boolean `success`. Anything else is a broken contract, not a client error:
// logged, and thrown as BrokerError Internal ("the database returned an
// unreadable <kind> result").
nlohmann::json parse_procedure_outcome(const std::string& result_json, const char* kind);

// The pushed items of one write, one vector per push operation; the write
// mints their ids and seals their payloads in place.
using PushedItems = std::vector<std::vector<PushItem>*>;

// After a commit: the queues whose new messages are poppable now (no deliverAt
// after now_ms), whose parked long polls should wake.
std::set<std::string> queues_to_wake(const PushedItems& items, std::int64_t now_ms);
// After a commit: true when an item was scheduled (deliverAt after now_ms), so
// the sweeper should look now rather than at its next sleep ceiling.
bool schedules_timers(const PushedItems& items, std::int64_t now_ms);

class AtomicWriter {
 public:
  // Everything given outlives the writer.
  AtomicWriter(flow::Arbiter& arbiter, PayloadEncryption& encryption, TenantQuotas& quotas,
               const CommitListeners& listeners, metrics::Metrics& metrics)
      : arbiter_(arbiter), encryption_(encryption), quotas_(quotas), listeners_(listeners), metrics_(metrics) {}

  // Mints the items' transactionIds, refuses what the tenant's push quota
  // refuses, seals the items and runs `call` (the procedure call, encoding the
  // items as they are then) on a Push-lane slot, its failures mapped by
  // translating_db_failures; `summarize` reads its result. When the database
  // rolled the write back for plaintext because this broker's list of
  // encrypted queues was stale, the list is re-read, the items sealed and the
  // write run once more. After a commit the pushes are counted (metrics,
  // quotas) and announced (long polls, timers); the acks are the caller's to count.
  WriteResult run(const PushedItems& items, const Tenant& tenant, const std::function<std::string()>& call,
                  const std::function<WriteSummary(const std::string&)>& summarize);

 private:
  WriteResult call_once(const std::function<std::string()>& call,
                        const std::function<WriteSummary(const std::string&)>& summarize);
  void seal(const PushedItems& items, const Tenant& tenant) const;

  flow::Arbiter& arbiter_;
  PayloadEncryption& encryption_;
  TenantQuotas& quotas_;
  const CommitListeners& listeners_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
