#include "http/transport/cors.h"

#include <algorithm>

namespace queen::http {

CorsPolicy::CorsPolicy(std::vector<std::string> origins) : origins_(std::move(origins)) {
  any_ = origins_.size() == 1 && origins_.front() == "*";
}

bool CorsPolicy::allows(std::string_view origin) const {
  return any_ || (!origin.empty() && std::find(origins_.begin(), origins_.end(), origin) != origins_.end());
}

void CorsPolicy::apply(std::string_view origin, bool preflight, Response& response) const {
  if (origins_.empty()) return;
  if (!any_) {
    // The answer depends on the Origin: caches must not hand one origin's answer to another.
    response.headers.emplace_back("Vary", "Origin");
    if (!allows(origin)) return;
  }
  response.headers.emplace_back("Access-Control-Allow-Origin", any_ ? std::string("*") : std::string(origin));
  if (preflight) {
    response.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS");
    response.headers.emplace_back("Access-Control-Allow-Headers", "Content-Type, Authorization");
    response.headers.emplace_back("Access-Control-Max-Age", "86400");
  }
}

}  // namespace queen::http
