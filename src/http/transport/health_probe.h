#pragma once
// `queen-broker --healthcheck`: the container's health check (docker/Dockerfile).
// One GET /health/ready to the broker this configuration describes, on the
// loopback address unless HOST names a specific one.
#include <chrono>
#include <string>

#include "config/config.h"

namespace queen::http {

struct HealthProbe {
  bool ready = false;
  std::string detail;  // "200 ready", "503 not_ready ...", or why no answer came
};

// The address a local probe dials: HOST, or 127.0.0.1 when HOST binds every address.
std::string probe_address(const config::HttpConfig& config);

HealthProbe probe_readiness(const config::HttpConfig& config, std::chrono::milliseconds timeout);

}  // namespace queen::http
