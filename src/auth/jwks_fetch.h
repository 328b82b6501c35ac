#pragma once
// How the JWKS document is downloaded: an injectable function (tests serve
// documents from memory), by default libcurl.
#include <functional>
#include <string>

namespace queen::auth {

struct FetchResult {
  bool ok = false;
  std::string body;   // when ok
  std::string error;  // when not: what went wrong, without the URL
};
// GET url within timeout_ms; 2xx only counts as ok.
using JwksFetch = std::function<FetchResult(const std::string& url, int timeout_ms)>;

// libcurl (http and https; redirects to https only; bodies past kMaxJwksBytes refused).
FetchResult fetch_with_curl(const std::string& url, int timeout_ms);

}  // namespace queen::auth
