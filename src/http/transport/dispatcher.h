#pragma once
// Turns a Request into a Response: OPTIONS, route lookup (404/405), the
// refusal of a browser's request from another origin (403, http/cross_site.h),
// the access gate (401/403, when authentication is on), the handler, and the
// error envelope for every failure. Never throws. The server adds the CORS
// headers of the dispatcher's policy (cors()): they depend on the request's Origin alone.
#include "auth/gate.h"
#include "http/transport/cors.h"
#include "http/transport/http_types.h"
#include "http/transport/router.h"
#include "metrics/metrics.h"

namespace queen::http {

class Dispatcher {
 public:
  // `gate`: null when authentication is off (every request is the anonymous principal).
  // `cors`: the origins of HTTP_CORS_ORIGINS, whose pages may call every route.
  Dispatcher(Router router, metrics::Metrics& metrics, const auth::Gate* gate = nullptr,
             CorsPolicy cors = CorsPolicy({}))
      : router_(std::move(router)), metrics_(metrics), gate_(gate), cors_(std::move(cors)) {}

  Response dispatch(Request& request) const;
  // Whether requests must carry their Authorization header to dispatch().
  bool wants_authorization() const { return gate_ != nullptr; }

  // The verdict on a request whose head alone is known (method, path, query, source and, when
  // wants_authorization(), Authorization; no body yet), so the server refuses a 403 or 401
  // without reading the body: the refusal, or nullopt with request.principal set and
  // head_authorized (dispatch() then checks nothing again).
  std::optional<Response> authorize_head(Request& request) const;

  metrics::Metrics& metrics() const { return metrics_; }
  const CorsPolicy& cors() const { return cors_; }

 private:
  // nullopt when the request may go on (request.principal is then set), else the refusal.
  std::optional<Response> authorize(Request& request, const Router::Match& match) const;

  Router router_;
  metrics::Metrics& metrics_;
  const auth::Gate* gate_;
  const CorsPolicy cors_;
};

// The error envelope for a failed handler (HttpError, BrokerError, anything
// else as 500), for handlers that fail after they returned (long polls).
Response error_response(const std::exception_ptr& error, const std::string& method, const std::string& path);

}  // namespace queen::http
