#pragma once
// Route table: method + pattern with `:name` segments. Path segments are
// percent-decoded after splitting, so an encoded '/' (%2F) stays inside its
// segment. When several patterns match, the one with a literal segment at
// the first position where they differ wins (`/consumer-groups/lagging`
// beats `/consumer-groups/:group`), independent of registration order.
// Every route states at registration what it demands of the caller (an
// access level, or auth::kPublic); the dispatcher's gate enforces it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/access.h"
#include "http/transport/http_types.h"

namespace queen::http {

std::vector<std::string> split_path(std::string_view path);  // decoded segments, empty ones dropped

class Router {
 public:
  void add(std::string method, const std::string& pattern, auth::RouteAccess access, Handler handler);

  struct Match {
    const Handler* handler = nullptr;  // null: no route for this method
    const auth::RouteAccess* access = nullptr;  // the route's demand, with the handler
    const std::string* pattern = nullptr;  // the route's template (e.g. /api/v1/pop/queue/:queue), with the handler
    PathParams params;
    std::vector<std::string> allowed_methods;  // non-empty when the path exists for other methods
  };
  Match match(const std::string& method, std::string_view path) const;

  // Every route in registration order, for the test that holds the access table.
  struct Listing {
    std::string method;
    std::string pattern;
    auth::RouteAccess access;
  };
  std::vector<Listing> list() const;

 private:
  struct Segment {
    std::string text;
    bool is_param;
  };
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<Segment> segments;
    auth::RouteAccess access;
    Handler handler;
  };

  static bool matches(const Route& route, const std::vector<std::string>& segments, PathParams* params);
  static bool more_specific(const Route& a, const Route& b);

  std::vector<Route> routes_;
};

}  // namespace queen::http
