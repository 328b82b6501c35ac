#include "http/transport/router.h"

#include <algorithm>

#include "util/percent_decode.h"

namespace queen::http {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) segments.push_back(util::percent_decode(path.substr(start, end - start), util::PlusMeans::Plus));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return segments;
}

void Router::add(std::string method, const std::string& pattern, auth::RouteAccess access, Handler handler) {
  Route route{std::move(method), pattern, {}, access, std::move(handler)};
  std::size_t start = 0;
  while (start <= pattern.size()) {
    const std::size_t slash = pattern.find('/', start);
    const std::size_t end = slash == std::string::npos ? pattern.size() : slash;
    if (end > start) {
      std::string text = pattern.substr(start, end - start);
      const bool is_param = text[0] == ':';
      route.segments.push_back({is_param ? text.substr(1) : text, is_param});
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  routes_.push_back(std::move(route));
}

bool Router::matches(const Route& route, const std::vector<std::string>& segments, PathParams* params) {
  if (route.segments.size() != segments.size()) return false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = route.segments[i];
    if (s.is_param) {
      if (params) (*params)[s.text] = segments[i];
    } else if (s.text != segments[i]) {
      return false;
    }
  }
  return true;
}

bool Router::more_specific(const Route& a, const Route& b) {
  for (std::size_t i = 0; i < a.segments.size() && i < b.segments.size(); ++i) {
    if (a.segments[i].is_param != b.segments[i].is_param) return !a.segments[i].is_param;
  }
  return false;
}

Router::Match Router::match(const std::string& method, std::string_view path) const {
  const std::vector<std::string> segments = split_path(path);
  Match result;
  const Route* best = nullptr;
  for (const Route& route : routes_) {
    if (!matches(route, segments, nullptr)) continue;
    if (route.method != method) {
      if (std::find(result.allowed_methods.begin(), result.allowed_methods.end(), route.method) ==
          result.allowed_methods.end()) {
        result.allowed_methods.push_back(route.method);
      }
      continue;
    }
    if (!best || more_specific(route, *best)) best = &route;
  }
  if (best) {
    matches(*best, segments, &result.params);
    result.handler = &best->handler;
    result.access = &best->access;
    result.pattern = &best->pattern;
    result.allowed_methods.clear();
  }
  return result;
}

std::vector<Router::Listing> Router::list() const {
  std::vector<Listing> listing;
  listing.reserve(routes_.size());
  for (const Route& route : routes_) listing.push_back({route.method, route.pattern, route.access});
  return listing;
}

}  // namespace queen::http
