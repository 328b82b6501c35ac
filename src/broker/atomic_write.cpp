#include "broker/atomic_write.h"

#include <spdlog/spdlog.h>

#include "broker/admission.h"
#include "broker/broker_error.h"
#include "broker/push.h"

namespace queen::broker {

nlohmann::json parse_procedure_outcome(const std::string& result_json, const char* kind) {
  nlohmann::json result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("success") || !result["success"].is_boolean()) {
    spdlog::error("{} procedure returned no success flag: {}", kind, result_json.substr(0, 200));
    throw BrokerError(ErrorKind::Internal, std::string("the database returned an unreadable ") + kind + " result");
  }
  return result;
}

std::set<std::string> queues_to_wake(const PushedItems& items, std::int64_t now_ms) {
  std::set<std::string> queues;
  for (const auto* operation : items) add_queues_to_wake(*operation, now_ms, queues);
  return queues;
}

bool schedules_timers(const PushedItems& items, std::int64_t now_ms) {
  for (const auto* operation : items) {
    if (schedules_timers(*operation, now_ms)) return true;
  }
  return false;
}

void AtomicWriter::seal(const PushedItems& items, const Tenant& tenant) const {
  for (auto* operation : items) encryption_.seal_items(tenant, *operation);
}

WriteResult AtomicWriter::call_once(const std::function<std::string()>& call,
                                    const std::function<WriteSummary(const std::string&)>& summarize) {
  WriteResult result;
  result.result_json = translating_db_failures(metrics_, [&] {
    // A write of pushes: one Push-lane slot for its one call.
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Push);
    return call();
  });
  result.summary = summarize(result.result_json);
  return result;
}

WriteResult AtomicWriter::run(const PushedItems& items, const Tenant& tenant, const std::function<std::string()>& call,
                              const std::function<WriteSummary(const std::string&)>& summarize) {
  // Minted here as on /push, so the ids are the broker's whatever the
  // database would mint; the answer names every pushed item either way.
  std::size_t pushed_items = 0;
  for (auto* operation : items) {
    mint_transaction_ids(*operation);
    pushed_items += operation->size();
  }
  throw_if_refused(quotas_.push_refusal(tenant, pushed_items));
  seal(items, tenant);
  WriteResult result = call_once(call, summarize);
  if (!result.summary.success && encryption_.enabled() && names_refused_plaintext(result.result_json)) {
    // This broker's list of encrypted queues was stale and the database
    // rolled everything back: re-read the list, seal, run once more.
    translating_db_failures(metrics_, [&] { encryption_.refresh(); });
    seal(items, tenant);
    result = call_once(call, summarize);
  }
  if (!result.summary.success) return result;  // rolled back: nothing to announce

  metrics_.record_push(result.summary.pushed);
  quotas_.note_accepted(tenant, result.summary.pushed);
  // Same after-commit path as a live /push: local long polls and, with the
  // mesh, the peers' ones. Scheduled items are the sweeper's to announce.
  const std::int64_t now_ms = now_epoch_ms();
  listeners_.messages_committed(queues_to_wake(items, now_ms));
  if (schedules_timers(items, now_ms)) listeners_.timers_scheduled();
  return result;
}

}  // namespace queen::broker
