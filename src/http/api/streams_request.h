#pragma once
// The bodies of the stream routes (docs/streams.md). Pure: every 400 of the
// routes comes from here; what only the database can judge (ids that are not
// UUIDs, op types, the ack, the bounds QUEEN_STREAM_*) is left to it.
#include <string>

#include "broker/streams.h"
#include "config/config.h"

namespace queen::http {

// Every body: 400 "Empty request body", "Invalid JSON: ...", "request body
// must be a JSON object" (and the bounded parser's limits, json_body.h).

// POST /streams/v1/queries: 400 "name is required", "source_queue is
// required", "config_hash is required" (missing, empty or not a string),
// "config_hash must be at most 1024 characters", "sink_queue must be a string", "reset must be a boolean";
// names as any name
// (input_limits.h). sink_queue "" is none.
broker::StreamQueryRegistration parse_stream_query_body(const std::string& body, const config::LimitsConfig& limits);

// POST /streams/v1/state/get: 400 "query_id is required", "partition_id is
// required", "keys must be strings", "key_prefix must be a string". keys that
// is not an array is no filter, key_prefix "" is none, ripe_at_or_before
// other than a number is none (as the SDKs expect).
broker::StreamStateRead parse_stream_state_body(const std::string& body, const config::LimitsConfig& limits);

// POST /streams/v1/cycle: 400 "query_id is required", "partition_id is
// required", "consumer_group must be a string", "release_lease must be a
// boolean", "state_ops must be an array", "push_items must be an array",
// "ack must be an object or null", "idempotency_key must be a string of 1 to
// 255 characters", and the /push item messages for a malformed push item.
// null is absent everywhere.
broker::StreamCycleCommand parse_stream_cycle_body(const std::string& body, const config::LimitsConfig& limits);

}  // namespace queen::http
