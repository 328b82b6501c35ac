#pragma once
// /api/v1/traces* (docs/api-extensions.md): the body of a recorded trace and the by-name listing's answer. Pure:
// every 400 of these routes is produced here (HttpError).
#include <optional>
#include <string>

#include "broker/types.h"
#include "config/config.h"

namespace queen::http {

// POST /api/v1/traces body, for the caller's `tenant`. nullopt when the
// partitionId is not a UUID (no such message: 404). 400 "transactionId and
// partitionId are required", "data is required", and for ill-typed fields.
// traceNames: an array of names, one name, or null.
std::optional<broker::TraceRecord> parse_trace_body(const Tenant& tenant, const std::string& body,
                                                    const config::LimitsConfig& limits = config::Config::defaults().limits);

// GET /api/v1/traces/by-name body: {"traces": [... with message_payload], "total", "pagination"}.
std::string render_traces_by_name(const db::TracesByName& page);

}  // namespace queen::http
