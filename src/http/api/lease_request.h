#pragma once
// POST /api/v1/lease/:leaseId/extend (docs/http-api.md): the body and the answer. Pure.
#include <string>

#include "broker/types.h"
#include "config/config.h"

namespace queen::http {

// The body (optional) -> seconds (default 60); 400 unless 1..one year.
int parse_lease_seconds(const std::string& body,
                        const config::LimitsConfig& limits = config::Config::defaults().limits);

// The answer: an object (never an array).
std::string render_lease_extension(const std::string& lease_id, const broker::LeaseExtension& extension);

}  // namespace queen::http
