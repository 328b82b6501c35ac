#pragma once
// Transport-neutral request/response used by the route handlers, so the
// handlers and the dispatcher are testable without sockets; the Beast adapter
// (server.cpp) converts to and from the wire.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "auth/principal.h"
#include "http/transport/body_budget.h"

namespace queen::http {

using PathParams = std::map<std::string, std::string>;   // decoded :params
using QueryParams = std::map<std::string, std::string>;  // decoded, first occurrence wins

// What the access log and the request metrics learn of a request while it is served
// (server.cpp creates it; the dispatcher fills the route and the tenant).
struct RequestFacts {
  std::string request_id;       // X-Request-Id as received (when well-formed) or minted
  std::string route = "unmatched";  // the matched route template
  std::string tenant;           // the caller's tenant's name, for the log ("": the default tenant)
};

// Where a browser says a request comes from (http/cross_site.h); each "" when the header is absent.
// The official clients, curl and scripts send none of them.
struct RequestSource {
  std::string origin;          // Origin
  std::string fetch_site;      // Sec-Fetch-Site
  std::string host;            // Host
  std::string forwarded_host;  // X-Forwarded-Host, from a proxy in front
};

struct Request {
  std::string method;
  std::string path;  // as received, without the query string (valid UTF-8 once percent-decoded)
  QueryParams query;
  std::string body;
  PathParams params;
  // The Authorization header, read only when authentication is on (never logged).
  std::string authorization;
  std::string accept;  // the Accept header (GET /metrics picks its format by it)
  RequestSource source;
  // Null in tests; set by the server for the access log and the request metrics.
  std::shared_ptr<RequestFacts> facts;
  // Resolved by the dispatcher before the handler runs (the anonymous one, the
  // default tenant's, stays when authentication is off); handlers scope their
  // work to its tenant.
  auth::Principal principal = auth::Principal::anonymous();
  // Set by Dispatcher::authorize_head once the head passed the cross-origin check and the gate: dispatch() then
  // takes `principal` as it is instead of checking the request (and verifying its token) a second time.
  bool head_authorized = false;
  // The body's share of HTTP_MAX_BODY_BYTES_IN_FLIGHT, returned when the last holder of the request lets go.
  std::shared_ptr<BodyBudget::Reservation> body_reservation;
  // True once the client closed its connection (checked before a long poll
  // claims anything). Absent in tests.
  std::function<bool()> client_gone;
  // Set by the server for handlers that answer later (a long poll parks
  // without a thread): `post` runs a task on a handler thread, `reply`
  // answers the request; a handler that will call `reply` returns
  // Response::deferred(). `reply` is thread-safe and must be called once.
  std::function<void(std::function<void()>)> post;
  std::function<void(struct Response)> reply;

  const std::string& param(const std::string& name) const;
  std::optional<std::string> query_value(const std::string& name) const;  // empty value = absent
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool deferred = false;  // the answer comes later, through Request::reply

  static Response json(int status, std::string body);
  static Response error(int status, const std::string& message);
  static Response no_content();
  static Response later();
};

// Thrown by handlers for a client error; rendered as {"error": message}.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

using Handler = std::function<Response(const Request&)>;

}  // namespace queen::http
