// queen::Tenant: made only from a name or as the default tenant, never from or
// to a string implicitly, comparable and hashable (a map key of the quotas).
#include "tenant/tenant.h"

#include <string>
#include <type_traits>
#include <unordered_map>

#include <gtest/gtest.h>

namespace queen {
namespace {

static_assert(!std::is_default_constructible_v<Tenant>, "a tenant is always named");
static_assert(!std::is_convertible_v<std::string, Tenant>, "no implicit tenant from a string");
static_assert(!std::is_convertible_v<const char*, Tenant>, "no implicit tenant from a literal");
static_assert(!std::is_convertible_v<Tenant, std::string>, "no implicit string from a tenant");
static_assert(std::is_constructible_v<Tenant, std::string>, "a tenant is made explicitly from its name");

TEST(Tenant, TheDefaultTenantIsTheEmptyName) {
  EXPECT_TRUE(Tenant::default_tenant().is_default());
  EXPECT_EQ(Tenant::default_tenant().name(), "");
  EXPECT_EQ(Tenant::default_tenant(), Tenant(""));
  EXPECT_FALSE(Tenant("acme").is_default());
  EXPECT_EQ(Tenant("acme").name(), "acme");
}

TEST(Tenant, ComparesAndHashesByName) {
  EXPECT_EQ(Tenant("acme"), Tenant("acme"));
  EXPECT_NE(Tenant("acme"), Tenant("globex"));
  EXPECT_NE(Tenant("acme"), Tenant::default_tenant());
  EXPECT_LT(Tenant::default_tenant(), Tenant("acme"));
  EXPECT_EQ(std::hash<Tenant>{}(Tenant("acme")), std::hash<Tenant>{}(Tenant("acme")));

  std::unordered_map<Tenant, int> counts;
  ++counts[Tenant("acme")];
  ++counts[Tenant("acme")];
  ++counts[Tenant::default_tenant()];
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts.at(Tenant("acme")), 2);
  EXPECT_EQ(counts.at(Tenant::default_tenant()), 1);
}

}  // namespace
}  // namespace queen
