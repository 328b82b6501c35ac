#pragma once
// Turns a Request into a Response: OPTIONS, route lookup (404/405), the
// access gate (401/403, when authentication is on), the handler, and the
// error envelope for every failure. Never throws. CORS headers are the
// server's (http/cors.h): they depend on the request's Origin alone.
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

  // The gate's verdict on a request whose head alone is known (method, path, query and
  // Authorization; no body yet), so the server refuses a 401/403 without reading the body:
  // the refusal, or nullopt with request.principal set and principal_resolved (dispatch()
  // then verifies nothing again). Only when wants_authorization().
  std::optional<Response> admit_head(Request& request) const;

  metrics::Metrics& metrics() const { return metrics_; }

 private:
  // nullopt when the request may go on (request.principal is then set), else the refusal.
  std::optional<Response> admit(Request& request, const Router::Match& match) const;

  Router router_;
  metrics::Metrics& metrics_;
  const auth::Gate* gate_;
};

// The error envelope for a failed handler (HttpError, BrokerError, anything
// else as 500), for handlers that fail after they returned (long polls).
Response error_response(const std::exception_ptr& error, const std::string& method, const std::string& path);

}  // namespace queen::http
