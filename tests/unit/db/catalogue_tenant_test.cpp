// The catalogue's tenant argument: every p_tenant of the database API takes a
// queen::Tenant, never a string (CONTRIBUTING.md, "The procedure catalogue").
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "db/catalogue.h"
#include "tenant/tenant.h"

namespace queen::db::catalogue {
namespace {

static_assert(TenantName::accepts<Tenant>, "a tenant argument takes a Tenant");
static_assert(TenantName::accepts<const Tenant&>, "... as a reference too");
static_assert(!TenantName::accepts<std::string>, "a string is not a tenant");
static_assert(!TenantName::accepts<const char*>, "nor is a literal");
static_assert(!Text::accepts<Tenant>, "and a tenant is no text argument");

static_assert(KvGet::accepts<std::string, Tenant>, "kv_get(key, tenant)");
static_assert(!KvGet::accepts<std::string, std::string>, "kv_get refuses a string where the tenant is expected");
static_assert(PushMessages::accepts<std::string, std::optional<std::string>, Tenant>,
              "push_messages(items, producer_sub, tenant)");
static_assert(!PushMessages::accepts<std::string, std::optional<std::string>, std::string>,
              "push_messages refuses a string tenant");
static_assert(PushWithDedup::accepts<std::string, std::optional<std::string>, Tenant, std::string>,
              "push_with_dedup(items, producer_sub, tenant, dedup)");
static_assert(ResourcesOverview::accepts<Tenant, std::string>, "a view takes (tenant, params)");
static_assert(!ResourcesOverview::accepts<std::string, std::string>, "a view refuses a string tenant");

TEST(CatalogueTenant, ATenantIsWrittenAsText) {
  EXPECT_STREQ(TenantName::pattern, "$#::text");
  EXPECT_STREQ(TenantName::pg_type, "text");
}

}  // namespace
}  // namespace queen::db::catalogue
