#pragma once
// POST /api/v1/configure (docs/http-api.md): the body into the queue to create or configure. Pure.
#include <string>

#include "config/config.h"

namespace queen::http {

struct ConfigureRequest {
  std::string queue;
  std::string namespace_name;
  std::string task;
  std::string options_json = "{}";
};
ConfigureRequest parse_configure_body(const std::string& body,
                                      const config::LimitsConfig& limits = config::Config::defaults().limits);

}  // namespace queen::http
