// The operator level (docs/auth.md, "Access levels"): cell-wide routes refuse
// a tenant's admin; an admin token without a tenant claim is the operator.
#include "auth/access.h"
#include "auth/gate.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "token_support.h"

using namespace queen::auth;
using queen::Tenant;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
const std::string kSecret = "access-test-secret-0123456789abcdef01";

std::string token(nlohmann::json claims) {
  claims["exp"] = kNow + 600;
  return "Bearer " + queen::test::mint_hs256(kSecret, claims);
}

Gate gate() {
  queen::config::JwtConfig c = queen::config::Config::defaults().jwt;
  c.enabled = true;
  c.secret = kSecret;
  return Gate(c, nullptr, [] { return kNow; });
}

}  // namespace

TEST(HeldLevel, AnAdminWithoutTenantIsTheOperator) {
  EXPECT_EQ(held_level(AccessLevel::Admin, Tenant::default_tenant()), AccessLevel::Operator);
  EXPECT_EQ(held_level(AccessLevel::Admin, Tenant("globex")), AccessLevel::Admin);
  EXPECT_EQ(held_level(AccessLevel::ReadWrite, Tenant::default_tenant()), AccessLevel::ReadWrite);
  EXPECT_EQ(held_level(AccessLevel::ReadOnly, Tenant::default_tenant()), AccessLevel::ReadOnly);
  EXPECT_LT(AccessLevel::Admin, AccessLevel::Operator);
  EXPECT_STREQ(to_string(AccessLevel::Operator), "operator");
  EXPECT_EQ(to_string(RouteAccess(AccessLevel::Operator)), "operator");
}

TEST(AccessRefusal, OperatorRoutesSayWhatTheyNeed) {
  EXPECT_FALSE(access_refusal(AccessLevel::Operator, AccessLevel::Operator));
  EXPECT_FALSE(access_refusal(AccessLevel::Operator, AccessLevel::ReadOnly));
  EXPECT_FALSE(access_refusal(AccessLevel::Admin, AccessLevel::Admin));
  const std::optional<std::string> tenant_admin = access_refusal(AccessLevel::Admin, AccessLevel::Operator);
  ASSERT_TRUE(tenant_admin);
  EXPECT_NE(tenant_admin->find("operator level"), std::string::npos);
  EXPECT_EQ(access_refusal(AccessLevel::ReadOnly, AccessLevel::Admin), "Insufficient permissions");
}

TEST(AnonymousPrincipal, IsTheOperatorWhenAuthenticationIsOff) {
  EXPECT_EQ(Principal::anonymous().level, AccessLevel::Operator);
}

TEST(GateOperatorLevel, TenantAdminIsRefusedOperatorIsAdmitted) {
  const Gate g = gate();
  const RouteAccess operator_route = AccessLevel::Operator;
  const RouteAccess admin_route = AccessLevel::Admin;

  const AccessDecision tenant_admin = g.authorize(token({{"role", "admin"}, {"tenant", "globex"}}), "/x", &operator_route);
  EXPECT_FALSE(tenant_admin.granted);
  EXPECT_EQ(tenant_admin.status, 403);
  EXPECT_NE(tenant_admin.error.find("operator"), std::string::npos);
  // Its own tenant's administration stays open to it.
  const AccessDecision own = g.authorize(token({{"role", "admin"}, {"tenant", "globex"}}), "/x", &admin_route);
  EXPECT_TRUE(own.granted);
  EXPECT_EQ(own.principal.level, AccessLevel::Admin);

  const AccessDecision op = g.authorize(token({{"role", "admin"}}), "/x", &operator_route);
  EXPECT_TRUE(op.granted);
  EXPECT_EQ(op.principal.level, AccessLevel::Operator);
  EXPECT_EQ(op.principal.tenant.name(), "");

  const AccessDecision writer = g.authorize(token({{"role", "read-write"}}), "/x", &operator_route);
  EXPECT_FALSE(writer.granted);
  EXPECT_EQ(writer.status, 403);
}
