#include "auth/access.h"

namespace queen::auth {

const char* to_string(AccessLevel level) {
  switch (level) {
    case AccessLevel::ReadOnly: return "read-only";
    case AccessLevel::ReadWrite: return "read-write";
    case AccessLevel::Admin: return "admin";
    case AccessLevel::Operator: return "operator";
  }
  return "unknown";
}

AccessLevel held_level(AccessLevel role_level, const Tenant& tenant) {
  return role_level == AccessLevel::Admin && tenant.is_default() ? AccessLevel::Operator : role_level;
}

std::optional<std::string> access_refusal(AccessLevel held, AccessLevel route) {
  if (held >= route) return std::nullopt;
  if (route == AccessLevel::Operator) {
    return "Insufficient permissions: this route acts on the whole cell and needs the operator level (an admin "
           "token without a tenant claim); a tenant's admin cannot use it";
  }
  return "Insufficient permissions";
}

std::string to_string(const RouteAccess& access) {
  return access.is_public() ? "public" : to_string(access.level());
}

SkipPaths::SkipPaths(std::vector<std::string> entries) {
  for (std::string& entry : entries) {
    if (entry.empty()) continue;
    if (entry.size() > 1 && entry.back() == '/') {
      prefixes_.push_back(std::move(entry));
    } else {
      exact_.push_back(std::move(entry));
    }
  }
}

bool SkipPaths::matches(std::string_view path) const {
  for (const std::string& entry : exact_) {
    if (path == entry) return true;
  }
  for (const std::string& prefix : prefixes_) {
    if (path.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

}  // namespace queen::auth
