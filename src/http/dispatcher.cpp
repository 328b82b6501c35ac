#include "http/dispatcher.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"

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

void add_cors_headers(Response& response) {
  response.headers.emplace_back("Access-Control-Allow-Origin", "*");
  response.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS");
  response.headers.emplace_back("Access-Control-Allow-Headers", "Content-Type, Authorization");
}

std::optional<Response> Dispatcher::admit(Request& request, const Router::Match& match) const {
  if (!gate_) return std::nullopt;
  auth::Admission admission = gate_->admit(request.authorization, request.path, match.access);
  if (admission.admitted) {
    request.principal = std::move(admission.principal);
    return std::nullopt;
  }
  spdlog::debug("http: {} {} refused with {}: {}", request.method, request.path, admission.status, admission.error);
  Response refused = Response::error(admission.status, admission.error);
  if (admission.status == 401) {
    refused.headers.emplace_back("WWW-Authenticate", request.authorization.empty()
                                                         ? "Bearer realm=\"queen\""
                                                         : "Bearer realm=\"queen\", error=\"invalid_token\"");
  }
  return refused;
}

Response Dispatcher::dispatch(Request& request) const {
  metrics_.record_request();
  Response response;
  if (request.method == "OPTIONS") {
    response = Response::no_content();
    response.headers.emplace_back("Access-Control-Max-Age", "86400");
  } else if (Router::Match match = router_.match(request.method, request.path);
             std::optional<Response> refused = admit(request, match)) {
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
      if (request.reply) {
        request.reply = [reply = std::move(request.reply)](Response later) {
          add_cors_headers(later);
          reply(std::move(later));
        };
      }
      try {
        response = (*match.handler)(request);
      } catch (...) {
        response = error_response(std::current_exception(), request.method, request.path);
      }
      if (response.deferred) return response;
    }
  }
  add_cors_headers(response);
  return response;
}

}  // namespace queen::http
