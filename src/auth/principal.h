#pragma once
// Who sent a request, as the HTTP layer resolved it. With authentication off
// every request is the anonymous principal: the default tenant, no subject,
// operator level (every route open).
#include <optional>
#include <string>

#include "tenant/tenant.h"

namespace queen::auth {

// Ordered: a level grants everything the lower ones grant. Admin
// administers one tenant's data; Operator runs the cell (maintenance, spool,
// cross-tenant statistics, mesh): an admin token without a tenant claim
// (docs/auth.md, "Access levels").
enum class AccessLevel { ReadOnly = 0, ReadWrite = 1, Admin = 2, Operator = 3 };

struct Principal {
  Tenant tenant;
  std::optional<std::string> subject;  // the token's `sub`, stamped on pushed messages as producerSub
  AccessLevel level = AccessLevel::Operator;

  // The principal of every request with authentication off, and of public
  // routes and JWT_SKIP_PATHS.
  static Principal anonymous() { return Principal{Tenant::default_tenant(), std::nullopt, AccessLevel::Operator}; }
};

}  // namespace queen::auth
