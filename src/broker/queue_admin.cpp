#include "broker/queue_admin.h"

#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

// The configure result's options.encryptionEnabled.
bool encryption_requested(const std::string& configured_json) {
  const nlohmann::json configured = nlohmann::json::parse(configured_json, nullptr, false);
  if (configured.is_discarded() || !configured.contains("options")) return false;
  const nlohmann::json& options = configured["options"];
  return options.is_object() && options.value("encryptionEnabled", false);
}

// The keys of the requested options that the configured queue's options
// (every option the database knows, echoed back) do not have, in key order.
std::vector<std::string> unknown_option_keys(const std::string& requested_json, const std::string& configured_json) {
  std::vector<std::string> unknown;
  const nlohmann::json requested = nlohmann::json::parse(requested_json, nullptr, false);
  const nlohmann::json configured = nlohmann::json::parse(configured_json, nullptr, false);
  if (!requested.is_object() || configured.is_discarded() || !configured.contains("options")) return unknown;
  const nlohmann::json& known = configured["options"];
  if (!known.is_object()) return unknown;
  for (auto it = requested.begin(); it != requested.end(); ++it) {
    if (!known.contains(it.key())) unknown.push_back(it.key());
  }
  return unknown;
}

// Names the unknown option keys (at most kNamedUnknownOptions of them).
std::string unknown_options_warning(const std::vector<std::string>& keys) {
  constexpr std::size_t kNamedUnknownOptions = 10;
  std::string out = keys.size() == 1 ? "unknown option ignored: " : "unknown options ignored: ";
  for (std::size_t i = 0; i < keys.size() && i < kNamedUnknownOptions; ++i) {
    if (i) out += ", ";
    out += keys[i];
  }
  if (keys.size() > kNamedUnknownOptions) out += " and " + std::to_string(keys.size() - kNamedUnknownOptions) + " more";
  out += " (configure is a full replace: every option not given has its default)";
  return out;
}

// `result_json` (an object) with a `warning` field added, the others untouched.
std::string with_warning(std::string result_json, const std::string& warning) {
  const std::size_t close = result_json.rfind('}');
  if (close == std::string::npos) return result_json;
  std::string field = ",\"warning\":";
  util::append_json_string(field, warning);
  result_json.insert(close, field);
  return result_json;
}

}  // namespace

std::string QueueAdmin::configure(const std::string& queue, const std::string& namespace_name, const std::string& task,
                                  const std::string& options_json, const Tenant& tenant) {
  std::string result;
  try {
    result = db_.configure_queue(queue, namespace_name, task, options_json, tenant).result_json;
  } catch (const db::DbError& e) {
    // A database failure on configure is a 500 (unexpected server error), not a 503.
    rethrow_db_failure(e, metrics_, /*transient_is_unavailable=*/false);
  }
  const bool wants_encryption = encryption_requested(result);
  encryption_.note_configured(tenant, queue, wants_encryption);
  // One `warning` for every note: what the request asked that was not done.
  std::string warning;
  // A misspelled option is not refused (clients send options we do not act
  // on), but not silent either: its real option was reset to its default.
  if (const std::vector<std::string> unknown = unknown_option_keys(options_json, result); !unknown.empty()) {
    warning = unknown_options_warning(unknown);
  }
  if (wants_encryption && !encryption_.enabled()) {
    // Said where the operator turns it on rather than pretend (docs/encryption.md).
    spdlog::warn("configure: queue {} asks for encryptionEnabled, but this broker has no "
                 "QUEEN_ENCRYPTION_KEY: pushes to it are refused by brokers without a key",
                 queue);
    if (!warning.empty()) warning += "; ";
    warning += kNoEncryptionKeyWarning;
  }
  if (!warning.empty()) result = with_warning(std::move(result), warning);
  if (cluster_ != nullptr) cluster_->queue_configured(queue);
  return result;
}

bool QueueAdmin::delete_queue(const std::string& queue, const Tenant& tenant) {
  const bool existed = translating_db_failures(metrics_, [&] { return db_.delete_queue(queue, tenant); });
  if (existed) spdlog::info("queue {} deleted", queue);
  // Mesh queue-config invalidation: peers drop what they
  // cached of this queue, exactly as after a reconfiguration. Sent even when
  // the queue did not exist here: a peer may still hold a stale entry.
  if (cluster_ != nullptr) cluster_->queue_configured(queue);
  return existed;
}

void QueueAdmin::queue_reconfigured_elsewhere(const std::string& queue) {
  (void)queue;  // the whole list is re-read: it also tells which queues stopped wanting encryption
  encryption_.refresh_soon();
}

}  // namespace queen::broker
