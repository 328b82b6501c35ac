#include "auth/access.h"

namespace queen::auth {

const char* to_string(AccessLevel level) {
  switch (level) {
    case AccessLevel::ReadOnly: return "read-only";
    case AccessLevel::ReadWrite: return "read-write";
    case AccessLevel::Admin: return "admin";
  }
  return "unknown";
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
