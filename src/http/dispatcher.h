#pragma once
// Turns a Request into a Response: CORS preflight, route lookup (404/405),
// the handler, and the error envelope for every failure. Never throws.
#include "http/http_types.h"
#include "http/router.h"
#include "metrics/metrics.h"

namespace queen::http {

class Dispatcher {
 public:
  Dispatcher(Router router, metrics::Metrics& metrics) : router_(std::move(router)), metrics_(metrics) {}

  Response dispatch(Request& request) const;

 private:
  Router router_;
  metrics::Metrics& metrics_;
};

// The CORS headers every response carries, errors and 204s included.
void add_cors_headers(Response& response);

// The error envelope for a failed handler (HttpError, BrokerError, anything
// else as 500), for handlers that fail after they returned (long polls).
Response error_response(const std::exception_ptr& error, const std::string& method, const std::string& path);

}  // namespace queen::http
