#pragma once
// Who sent a request, as the HTTP layer resolved it. With authentication off
// every request is the anonymous principal: the default tenant, no subject,
// admin level (every route open).
#include <optional>
#include <string>

namespace queen::auth {

// Ordered: a level grants everything the lower ones grant.
enum class AccessLevel { ReadOnly = 0, ReadWrite = 1, Admin = 2 };

struct Principal {
  std::string tenant;                  // "" is the default tenant
  std::optional<std::string> subject;  // the token's `sub`, stamped on pushed messages as producerSub
  AccessLevel level = AccessLevel::Admin;
};

}  // namespace queen::auth
