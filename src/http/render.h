#pragma once
// Response bodies of the hot routes, built as text so payloads (already JSON
// text from the database) are spliced in verbatim. Shapes: push, pop, ack, transaction, lease extend.
#include <string>
#include <vector>

#include "broker/types.h"

namespace queen::http {

// Push: a bare array; every item carries status plus both key casings.
std::string render_push_results(const std::vector<broker::PushItemResult>& results);

// Pop 200 body (callers answer 204 for an empty outcome).
std::string render_pop(const broker::PopOutcome& outcome);

// Ack: an array of {index, transactionId, success, error, queueName, partitionName, leaseReleased, dlq}.
std::string render_ack_results(const std::vector<broker::AckResult>& results);

// Lease extend: an object (never an array).
std::string render_lease_extension(const std::string& lease_id, const broker::LeaseExtension& extension);

}  // namespace queen::http
