#include "broker/streams.h"

#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "broker/encoding.h"
#include "broker/pop_wakes.h"
#include "broker/push.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

void append_field(std::string& out, const char* name, const std::string& value) {
  out += ",\"";
  out += name;
  out += "\":";
  util::append_json_string(out, value);
}

// summarize_stream_result, a broken contract answered 500.
StreamCycleSummary summary_of(const std::string& result_json) {
  try {
    return summarize_stream_result(result_json);
  } catch (const std::invalid_argument& e) {
    spdlog::error("streams: {}", e.what());
    throw BrokerError(ErrorKind::Internal, "the database returned an unreadable stream result");
  }
}

StreamOutcome outcome_of(std::string result_json) {
  StreamOutcome outcome;
  outcome.success = summary_of(result_json).success;
  outcome.result_json = std::move(result_json);
  return outcome;
}

}  // namespace

std::string encode_stream_registration(const StreamQueryRegistration& r) {
  std::string out = "{\"reset\":";
  out += r.reset ? "true" : "false";
  append_field(out, "name", r.name);
  append_field(out, "source_queue", r.source_queue);
  append_field(out, "config_hash", r.config_hash);
  if (r.sink_queue) append_field(out, "sink_queue", *r.sink_queue);
  out += '}';
  return out;
}

std::string encode_stream_state_read(const StreamStateRead& r) {
  std::string out = "{\"keys\":[";
  for (std::size_t i = 0; i < r.keys.size(); ++i) {
    if (i) out += ',';
    util::append_json_string(out, r.keys[i]);
  }
  out += ']';
  append_field(out, "query_id", r.query_id);
  append_field(out, "partition_id", r.partition_id);
  if (r.key_prefix) append_field(out, "key_prefix", *r.key_prefix);
  if (r.ripe_at_or_before_json) {
    out += ",\"ripe_at_or_before\":";
    out += *r.ripe_at_or_before_json;
  }
  out += '}';
  return out;
}

std::string encode_stream_cycle(const StreamCycleCommand& c) {
  std::string out = "{\"release_lease\":";
  out += c.release_lease ? "true" : "false";
  append_field(out, "query_id", c.query_id);
  append_field(out, "partition_id", c.partition_id);
  if (c.consumer_group) append_field(out, "consumer_group", *c.consumer_group);
  if (c.idempotency_key) append_field(out, "idempotency_key", *c.idempotency_key);
  out += ",\"state_ops\":";
  out += c.state_ops_json;
  out += ",\"push_items\":[";
  for (std::size_t i = 0; i < c.push_items.size(); ++i) {
    if (i) out += ',';
    append_push_item(out, c.push_items[i]);
  }
  out += "],\"ack\":";
  out += c.ack_json ? *c.ack_json : std::string("null");
  out += '}';
  return out;
}

StreamCycleSummary summarize_stream_result(const std::string& result_json) {
  const nlohmann::json result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("success") || !result["success"].is_boolean()) {
    throw std::invalid_argument("stream procedure returned no success flag: " + result_json.substr(0, 200));
  }
  StreamCycleSummary summary;
  summary.success = result["success"].get<bool>();
  const auto pushes = result.find("push_results");
  if (pushes != result.end() && pushes->is_array()) {
    for (const auto& entry : *pushes) {
      if (entry.is_object() && entry.value("status", "") == "queued") ++summary.queued;
    }
  }
  const auto ack = result.find("ack_result");
  summary.acked = ack != result.end() && ack->is_object();
  return summary;
}

StreamOutcome Streams::register_stream_query(const StreamQueryRegistration& registration, const Tenant& tenant) {
  return outcome_of(translating_db_failures(metrics_, [&] {
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Push);
    return db_.stream_register_query(encode_stream_registration(registration), tenant);
  }));
}

StreamOutcome Streams::read_stream_state(const StreamStateRead& read, const Tenant& tenant) {
  return outcome_of(translating_db_failures(metrics_, [&] {
    return reads_.run([&] { return db_.stream_state_get(encode_stream_state_read(read), tenant); });
  }));
}

StreamCycleSummary Streams::call_stream_cycle(const StreamCycleCommand& command, const PushOrigin& origin,
                                              StreamOutcome& outcome) {
  // No maintenance or spool diversion: a cycle is all or nothing against
  // PostgreSQL, so an outage answers 503 and the SDK's retry is safe.
  outcome.result_json = translating_db_failures(metrics_, [&] {
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Push);
    return db_.stream_cycle(encode_stream_cycle(command), origin);
  });
  return summary_of(outcome.result_json);
}

StreamOutcome Streams::run_stream_cycle(StreamCycleCommand command, const PushOrigin& origin) {
  // Minted here as on /push, so every pushed item is named in the answer.
  mint_transaction_ids(command.push_items);
  throw_if_refused(quotas_.push_refusal(origin.tenant, command.push_items.size()));
  encryption_.seal_items(origin.tenant, command.push_items);
  StreamOutcome outcome;
  StreamCycleSummary summary = call_stream_cycle(command, origin, outcome);
  if (!summary.success && encryption_.enabled() && names_refused_plaintext(outcome.result_json)) {
    // This broker's list of encrypted queues was stale and the database
    // rolled the cycle back: re-read the list, seal, run once more.
    translating_db_failures(metrics_, [&] { encryption_.refresh(); });
    encryption_.seal_items(origin.tenant, command.push_items);
    summary = call_stream_cycle(command, origin, outcome);
  }
  outcome.success = summary.success;
  if (!summary.success) return outcome;  // rolled back: nothing to announce

  metrics_.record_push(summary.queued);
  quotas_.note_accepted(origin.tenant, summary.queued);
  if (summary.acked) metrics_.record_ack(1, 0);
  // Same after-commit path as a live /push: local long polls and, with the
  // mesh, the peers' ones. Scheduled items are the sweeper's to announce.
  const std::int64_t now_ms = now_epoch_ms();
  std::set<std::string> queues;
  add_queues_to_wake(command.push_items, now_ms, queues);
  listeners_.messages_committed(queues);
  if (schedules_timers(command.push_items, now_ms)) listeners_.timers_scheduled();
  return outcome;
}

}  // namespace queen::broker
