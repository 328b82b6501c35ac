// The JWKS download (libcurl), apart from the rest so the fuzz build needs no libcurl.
#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "auth/jwks_fetch.h"
#include "auth/keys.h"

namespace queen::auth {
namespace {

struct Body {
  std::string text;
  bool too_large = false;
};

std::size_t append_bounded(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t bytes = size * count;
  if (body->text.size() + bytes > kMaxJwksBytes) {
    body->too_large = true;
    return 0;  // aborts the transfer
  }
  body->text.append(data, bytes);
  return bytes;
}

}  // namespace

FetchResult fetch_with_curl(const std::string& url, int timeout_ms) {
  static std::once_flag initialized;
  std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  FetchResult result;
  if (!curl) {
    result.error = "libcurl could not start a transfer";
    return result;
  }
  Body body;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a threaded process
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https");
  curl_easy_setopt(c, CURLOPT_USERAGENT, "queen-broker");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_bounded);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (body.too_large) {
    result.error = "document larger than 1 MiB";
  } else if (code != CURLE_OK) {
    result.error = curl_easy_strerror(code);
  } else if (status < 200 || status > 299) {
    result.error = "HTTP status " + std::to_string(status);
  } else {
    result.ok = true;
    result.body = std::move(body.text);
  }
  return result;
}

}  // namespace queen::auth
