#pragma once
// What the drain needs from the rest of the broker, as interfaces, so the
// spool depends on neither the database nor whatever limits replay work.
#include <memory>
#include <string>
#include <vector>

#include "spool/spool_event.h"

namespace queen::spool {

struct ReplayOutcome {
  // Ok: the batch is stored (or came back duplicate: it was stored before).
  // Transient: the database is unreachable or overloaded; retry later, keep the file.
  // Permanent: the database rejected the data; the same bytes will fail again.
  enum class Kind { Ok, Transient, Permanent } kind = Kind::Ok;
  std::string error;
  // Transient only: right after the failure the store checked that the
  // database answers other calls (a ping succeeded), so the failure belongs
  // to this batch, not to an outage: the drain's poison rule counts it
  // (docs/operations-spool.md, "Poison suspects"). An outage never does.
  bool database_answered = false;

  static ReplayOutcome ok() { return {Kind::Ok, {}, false}; }
  static ReplayOutcome transient(std::string e) { return {Kind::Transient, std::move(e), false}; }
  static ReplayOutcome permanent(std::string e) { return {Kind::Permanent, std::move(e), false}; }
  // A transient failure of this batch while the database answered a ping.
  static ReplayOutcome transient_while_answering(std::string e) { return {Kind::Transient, std::move(e), true}; }
};

const char* to_string(ReplayOutcome::Kind kind) noexcept;

// Stores one replay batch. The drain guarantees: 1 <= batch.size() <=
// FILE_BUFFER_MAX_BATCH, the records' bytes within FILE_BUFFER_MAX_BATCH_BYTES
// unless the batch is one larger event; the events of one (tenant, queue, partition) are
// contiguous and in file order, and the groups of one tenant are next to each
// other. The store writes each run of one tenant and producer as one transaction,
// keeps each original transactionId, mints fresh message ids and bypasses the
// in-memory dedup cache so the database decides about duplicates. It is called
// by the drain's lanes (SpoolDrainOptions::replay_lanes), concurrently for
// batches of different groups and never for two batches of one group at once,
// or from startup recovery, before the drain runs.
class ReplayStore {
 public:
  virtual ~ReplayStore() = default;
  virtual ReplayOutcome replay(const std::vector<SpoolEvent>& batch) = 0;
};

// Held while one file is replayed; releasing it (destruction) frees the slot.
class ReplayPermit {
 public:
  virtual ~ReplayPermit() = default;
};

// Admission of replay work, so a recovering spool does not outrank live
// traffic (the broker's gate: a Maint slot of its arbiter). Called before
// each file of a drain cycle; nullptr means "not now": the cycle ends and the
// file is retried next cycle, with no failure counted.
class ReplayGate {
 public:
  virtual ~ReplayGate() = default;
  virtual std::unique_ptr<ReplayPermit> admit() = 0;
};

}  // namespace queen::spool
