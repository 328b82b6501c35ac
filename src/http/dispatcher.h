#pragma once
// Turns a Request into a Response: CORS preflight, route lookup (404/405),
// the access gate (401/403, when authentication is on), the handler, and the
// error envelope for every failure. Never throws.
#include "auth/gate.h"
#include "http/http_types.h"
#include "http/router.h"
#include "metrics/metrics.h"

namespace queen::http {

class Dispatcher {
 public:
  // `gate`: null when authentication is off (every request is the anonymous principal).
  Dispatcher(Router router, metrics::Metrics& metrics, const auth::Gate* gate = nullptr)
      : router_(std::move(router)), metrics_(metrics), gate_(gate) {}

  Response dispatch(Request& request) const;
  // Whether requests must carry their Authorization header to dispatch().
  bool wants_authorization() const { return gate_ != nullptr; }

 private:
  // nullopt when the request may go on (request.principal is then set), else the refusal.
  std::optional<Response> admit(Request& request, const Router::Match& match) const;

  Router router_;
  metrics::Metrics& metrics_;
  const auth::Gate* gate_;
};

// The CORS headers every response carries, errors and 204s included.
void add_cors_headers(Response& response);

// The error envelope for a failed handler (HttpError, BrokerError, anything
// else as 500), for handlers that fail after they returned (long polls).
Response error_response(const std::exception_ptr& error, const std::string& method, const std::string& path);

}  // namespace queen::http
