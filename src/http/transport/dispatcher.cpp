#include "http/transport/dispatcher.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "http/transport/cross_site.h"

namespace queen::http {
namespace {

int status_of(broker::ErrorKind kind) {
  switch (kind) {
    case broker::ErrorKind::BadRequest: return 400;
    case broker::ErrorKind::Unavailable: return 503;
    case broker::ErrorKind::Internal: return 500;
    case broker::ErrorKind::TooManyRequests: return 429;
  }
  return 500;
}

}  // namespace

Response error_response(const std::exception_ptr& error, const std::string& method, const std::string& path) {
  try {
    std::rethrow_exception(error);
  } catch (const HttpError& e) {
    return Response::error(e.status(), e.what());
  } catch (const broker::BrokerError& e) {
    Response response = Response::error(status_of(e.kind()), e.what());
    if (e.retry_after_s() > 0) response.headers.emplace_back("Retry-After", std::to_string(e.retry_after_s()));
    return response;
  } catch (const std::exception& e) {
    // Unexpected: the text may carry internals (a database error's context), so it goes to the log only.
    spdlog::error("http: {} {} failed: {}", method, path, e.what());
    return Response::error(500, "Internal error");
  } catch (...) {
    spdlog::error("http: {} {} failed with a non-standard exception", method, path);
    return Response::error(500, "Internal error");
  }
}

std::optional<Response> Dispatcher::authorize(Request& request, const Router::Match& match) const {
  if (request.facts && match.pattern) request.facts->route = *match.pattern;
  if (request.head_authorized) return std::nullopt;
  if (auto refused = refuse_cross_origin(request.source, cors_, match.access && match.access->is_public())) {
    spdlog::debug("http: {} {} refused with 403: a browser's request from an origin HTTP_CORS_ORIGINS does not list",
                  request.method, request.path);
    return refused;
  }
  if (!gate_) return std::nullopt;
  auth::AccessDecision decision = gate_->authorize(request.authorization, request.path, match.access);
  if (decision.granted) {
    request.principal = std::move(decision.principal);
    if (request.facts) request.facts->tenant = request.principal.tenant.name();
    return std::nullopt;
  }
  spdlog::debug("http: {} {} refused with {}: {}", request.method, request.path, decision.status, decision.error);
  Response refused = Response::error(decision.status, decision.error);
  if (decision.status == 401) {
    refused.headers.emplace_back("WWW-Authenticate", request.authorization.empty()
                                                         ? "Bearer realm=\"queen\""
                                                         : "Bearer realm=\"queen\", error=\"invalid_token\"");
  }
  return refused;
}

std::optional<Response> Dispatcher::authorize_head(Request& request) const {
  if (request.method == "OPTIONS") return std::nullopt;  // no route runs, no token is needed (preflights carry none)
  // Without a gate, only a request from another origin needs its route (is it public?).
  if (gate_ || from_another_origin(request.source)) {
    if (std::optional<Response> refused = authorize(request, router_.match(request.method, request.path))) {
      metrics_.record_request();  // answered here: dispatch() never sees it
      return refused;
    }
  }
  request.head_authorized = true;
  return std::nullopt;
}

Response Dispatcher::dispatch(Request& request) const {
  metrics_.record_request();
  Response response;
  if (request.method == "OPTIONS") {
    response = Response::no_content();
  } else if (Router::Match match = router_.match(request.method, request.path);
             std::optional<Response> refused = authorize(request, match)) {
    response = std::move(*refused);
  } else {
    if (!match.handler) {
      if (match.allowed_methods.empty()) {
        response = Response::error(404, "Not found");
      } else {
        response = Response::error(405, "Method not allowed");
        std::string allow;
        for (const auto& m : match.allowed_methods) allow += (allow.empty() ? "" : ", ") + m;
        response.headers.emplace_back("Allow", allow + ", OPTIONS");
      }
    } else {
      request.params = std::move(match.params);
      try {
        response = (*match.handler)(request);
      } catch (...) {
        response = error_response(std::current_exception(), request.method, request.path);
      }
    }
  }
  return response;
}

}  // namespace queen::http
