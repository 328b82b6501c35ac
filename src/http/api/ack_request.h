#pragma once
// POST /api/v1/ack and /api/v1/ack/batch (docs/http-api.md): the body into broker ack items, and the answer.
// Pure: every 400 of these routes is produced here (HttpError).
#include <optional>
#include <string>
#include <vector>

#include "broker/types.h"
#include "config/config.h"

namespace queen::http {

struct AckRequest {
  std::vector<broker::AckItem> items;
  std::optional<std::string> consumer_group;  // absent / null / "" = queue mode
};
// POST /api/v1/ack (one item) and POST /api/v1/ack/batch.
AckRequest parse_ack_body(const std::string& body,
                          const config::LimitsConfig& limits = config::Config::defaults().limits);
AckRequest parse_ack_batch_body(const std::string& body,
                                const config::LimitsConfig& limits = config::Config::defaults().limits);

// The answer, built as text: an array of {index, transactionId, success, error, queueName, partitionName,
// leaseReleased, dlq}.
std::string render_ack_results(const std::vector<broker::AckResult>& results);

}  // namespace queen::http
