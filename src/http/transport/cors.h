#pragma once
// Cross-origin access for browser pages (HTTP_CORS_ORIGINS, docs/auth.md
// "Browsers and CORS"). Off by default: no answer carries an
// Access-Control-* header, so a page from another origin cannot read any
// answer nor send a preflighted request (DELETE, JSON bodies, a bearer
// token); the requests a browser sends without a preflight are refused by
// http/cross_site.h. The dashboard is served by the broker itself and needs none.
#include <string>
#include <string_view>
#include <vector>

#include "http/transport/http_types.h"

namespace queen::http {

class CorsPolicy {
 public:
  // Exact origins ("https://app.example.com:8443"), or the single entry "*" for any origin.
  explicit CorsPolicy(std::vector<std::string> origins);

  // Adds to an answer the headers a request from `origin` ("" = no Origin header) earns; `preflight`:
  // an OPTIONS request carrying Access-Control-Request-Method. A listed origin is echoed with
  // `Vary: Origin` (a preflight also gets the methods, headers and Max-Age); any other gets nothing.
  void apply(std::string_view origin, bool preflight, Response& response) const;

  // Whether a page of `origin` may call the broker: it is listed, or the list is "*" (then even a
  // request whose origin the browser did not send).
  bool allows(std::string_view origin) const;

 private:
  std::vector<std::string> origins_;
  bool any_ = false;
};

}  // namespace queen::http
