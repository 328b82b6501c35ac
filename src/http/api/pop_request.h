#pragma once
// The three pop forms (docs/http-api.md): the path and query into a broker pop command, and the 200 answer.
// Pure: every 400 of these routes is produced here (HttpError).
#include <string>

#include "broker/types.h"
#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

enum class PopForm { Wildcard, Specific, Filter };
// Path params `queue` / `partition`, then the query
// (batch, wait, timeout, consumerGroup, autoAck, subscription, namespace/task);
// the pop is for the caller's tenant (request.principal).
broker::PopCommand parse_pop_request(PopForm form, const Request& request, const config::PopConfig& pop,
                                     const config::LimitsConfig& limits = config::Config::defaults().limits);

// The 200 body, built as text so payloads (already JSON text from the database) are spliced in verbatim
// (callers answer 204 for an empty outcome).
std::string render_pop(const broker::PopOutcome& outcome);

}  // namespace queen::http
