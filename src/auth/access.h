#pragma once
// What a route demands (docs/auth.md, "Access levels"): an access level, or
// nothing at all (public). Every route states its demand when it is
// registered, so none can be added without one; the public paths of
// JWT_SKIP_PATHS are matched here too.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/principal.h"
#include "tenant/tenant.h"

namespace queen::auth {

// The explicit marker of a route anyone may call without a token.
struct Public {};
inline constexpr Public kPublic{};

class RouteAccess {
 public:
  // Implicit on purpose: router.add("GET", path, AccessLevel::ReadOnly, ...) or (..., kPublic, ...).
  RouteAccess(AccessLevel level) : level_(level) {}  // NOLINT(google-explicit-constructor)
  RouteAccess(Public) {}                              // NOLINT(google-explicit-constructor)

  bool is_public() const { return !level_.has_value(); }
  // The least level a token must grant; only for a route that is not public.
  AccessLevel level() const { return *level_; }
  bool operator==(const RouteAccess& other) const { return level_ == other.level_; }

 private:
  std::optional<AccessLevel> level_;
};

// The level a verified token holds: its role's, except that an admin token
// without a tenant claim (tenant "", the default tenant) is the operator.
AccessLevel held_level(AccessLevel role_level, const Tenant& tenant);

// Why a principal holding `held` may not call a route demanding `route`
// (the 403 error), or empty when it may.
std::optional<std::string> access_refusal(AccessLevel held, AccessLevel route);

// "public", "read-only", "read-write", "admin", "operator" (tests and docs).
std::string to_string(const RouteAccess& access);
const char* to_string(AccessLevel level);

// JWT_SKIP_PATHS: an entry matches its path exactly; an entry ending in '/'
// (other than a bare "/") matches every path it is a prefix of.
class SkipPaths {
 public:
  explicit SkipPaths(std::vector<std::string> entries);
  bool matches(std::string_view path) const;

 private:
  std::vector<std::string> exact_;
  std::vector<std::string> prefixes_;
};

}  // namespace queen::auth
