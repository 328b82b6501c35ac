#pragma once
// Commands and results of the broker use cases (transport-neutral).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/procedures.h"

namespace queen::broker {

using db::kQueueModeGroup;

// The tenant and producer subject of a push (db/procedures.h).
using PushOrigin = db::PushOrigin;
inline constexpr const char* kDefaultPartition = "Default";

struct PushItem {
  std::string queue;
  std::string partition = kDefaultPartition;
  std::string payload_json = "{}";  // the payload as JSON text, stored verbatim
  std::string transaction_id;       // minted by the broker when empty
  std::optional<std::string> trace_id;
  std::optional<std::string> namespace_name;
  std::optional<std::string> task;
  // deliverAt as Unix epoch ms: a future instant makes the item a timer
  // (queen.push_messages routes it to schedule_messages); a past one is a
  // plain push.
  std::optional<std::int64_t> deliver_at_ms;
  // payload_json is the broker's AES-256-GCM envelope of the client's JSON
  // (docs/encryption.md), set by PayloadEncryption, never by a client.
  bool encrypted = false;
  // Plaintext sent by a broker that holds a key: the database refuses it
  // (encryption_required) if the queue wants encryption after all.
  bool key_held = false;
};

enum class PushStatus { Queued, Duplicate, Buffered, Failed };
// Inline: the HTTP request code renders it without linking the use cases (the fuzz harnesses).
inline const char* to_string(PushStatus status) noexcept {
  switch (status) {
    case PushStatus::Queued: return "queued";
    case PushStatus::Duplicate: return "duplicate";
    case PushStatus::Buffered: return "buffered";
    case PushStatus::Failed: return "failed";
  }
  return "failed";
}

struct PushItemResult {
  int index = 0;
  PushStatus status = PushStatus::Failed;
  std::string transaction_id;
  std::optional<std::string> message_id;
  std::optional<std::string> partition_id;
  std::optional<std::string> trace_id;
  std::string queue;
  std::string partition;
  std::optional<std::string> error;
};

struct PushOutcome {
  std::vector<PushItemResult> items;
  // Push maintenance diverted the items and at least one could not be
  // spooled: the route answers 500 (with the per-item array) in that case.
  bool maintenance_spool_failed = false;
};

// Why a push was not stored in PostgreSQL (the spool hook gets to decide).
enum class UnstoredReason { DatabaseUnavailable, PushMaintenance };

struct PopCommand {
  db::PopRequest query;
  bool wait = false;
  std::int64_t timeout_ms = 0;
};

struct PopOutcome {
  std::vector<db::PoppedMessage> messages;  // empty: nothing deliverable (204)
  std::string consumer_group;               // the group name, or kQueueModeGroup
};

struct AckItem {
  std::string transaction_id;
  std::string partition_id;
  std::optional<std::string> lease_id;
  std::optional<std::string> status;
  std::optional<std::string> error;
};

using AckResult = db::AckRow;
using LeaseExtension = db::LeaseExtension;
using DlqFilter = db::DlqFilter;
using DlqQuery = db::DlqQuery;
using DlqPage = db::DlqPage;
using TraceRecord = db::TraceRecord;            // message administration (message_admin.h)
using MessageListQuery = db::MessageListQuery;
using DlqSelection = db::DlqSelection;

struct SpoolStatus {
  std::uint64_t pending = 0;
  std::uint64_t failed = 0;
  bool db_healthy = true;
  bool healthy = true;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t failed_files = 0;
  std::uint64_t failed_bytes = 0;
  std::string directory;             // the spool directory in use ("" with no spool)
  std::string configured_directory;  // FILE_BUFFER_DIR
  bool directory_fallback = false;   // `directory` is the per-user fallback: FILE_BUFFER_DIR was not usable
  std::string fallback_reason;       // why, when directory_fallback
};

struct MaintenanceStatus {
  bool push_maintenance = false;
  bool pop_maintenance = false;
  SpoolStatus spool;
};

struct DatabaseHealth {
  bool connected = false;
  std::chrono::microseconds latency{0};
  std::string error;  // why the ping failed
  // Set when the ping failed because the database cannot be used as
  // configured (wrong password, no such database ...): waiting will not help.
  std::string configuration_fault;
};

}  // namespace queen::broker
