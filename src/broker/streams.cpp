#include "broker/streams.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "broker/encoding.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

ProcedureOutcome outcome_of(std::string result_json) {
  ProcedureOutcome outcome;
  outcome.success = summarize_stream_result(result_json).success;
  outcome.result_json = std::move(result_json);
  return outcome;
}

}  // namespace

std::string encode_stream_registration(const StreamQueryRegistration& r) {
  std::string out = "{\"reset\":";
  out += r.reset ? "true" : "false";
  util::append_json_member(out, "name", r.name);
  util::append_json_member(out, "source_queue", r.source_queue);
  util::append_json_member(out, "config_hash", r.config_hash);
  util::append_json_member_if_set(out, "sink_queue", r.sink_queue);
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
  util::append_json_member(out, "query_id", r.query_id);
  util::append_json_member(out, "partition_id", r.partition_id);
  util::append_json_member_if_set(out, "key_prefix", r.key_prefix);
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
  util::append_json_member(out, "query_id", c.query_id);
  util::append_json_member(out, "partition_id", c.partition_id);
  util::append_json_member_if_set(out, "consumer_group", c.consumer_group);
  util::append_json_member_if_set(out, "idempotency_key", c.idempotency_key);
  out += ",\"state_ops\":";
  out += c.state_ops_json;
  out += ",\"push_items\":";
  append_push_items(out, c.push_items);
  out += ",\"ack\":";
  out += c.ack_json ? *c.ack_json : std::string("null");
  out += '}';
  return out;
}

WriteSummary summarize_stream_result(const std::string& result_json) {
  const nlohmann::json result = parse_procedure_outcome(result_json, "stream");
  WriteSummary summary;
  summary.success = result["success"].get<bool>();
  const auto pushes = result.find("push_results");
  if (pushes != result.end() && pushes->is_array()) {
    for (const auto& entry : *pushes) {
      if (entry.is_object() && entry.value("status", "") == "queued") ++summary.pushed;
    }
  }
  const auto ack = result.find("ack_result");
  summary.acked = ack != result.end() && ack->is_object() ? 1 : 0;
  return summary;
}

ProcedureOutcome Streams::register_stream_query(const StreamQueryRegistration& registration, const Tenant& tenant) {
  return outcome_of(translating_db_failures(metrics_, [&] {
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Push);
    return db_.stream_register_query(encode_stream_registration(registration), tenant);
  }));
}

ProcedureOutcome Streams::read_stream_state(const StreamStateRead& read, const Tenant& tenant) {
  return outcome_of(translating_db_failures(metrics_, [&] {
    return reads_.run([&] { return db_.stream_state_get(encode_stream_state_read(read), tenant); });
  }));
}

ProcedureOutcome Streams::run_stream_cycle(StreamCycleCommand command, const PushOrigin& origin) {
  WriteResult result = writer_.run(
      {&command.push_items}, origin.tenant,
      [&] { return db_.stream_cycle(encode_stream_cycle(command), origin); }, summarize_stream_result);
  // A cycle's ack is one ack request.
  if (result.summary.success && result.summary.acked > 0) metrics_.record_ack(1, 0);
  return ProcedureOutcome{std::move(result.result_json), result.summary.success};
}

}  // namespace queen::broker
