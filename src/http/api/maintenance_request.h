#pragma once
// POST /api/v1/system/maintenance(/pop) (docs/operations.md): the body. Pure.
#include <string>

#include "config/config.h"

namespace queen::http {

// The body {"enabled": bool}; 400 "enabled (boolean) is required" otherwise.
bool parse_enabled_body(const std::string& body,
                        const config::LimitsConfig& limits = config::Config::defaults().limits);

}  // namespace queen::http
