// The routes hand the requester's tenant (and, for pushes, its subject) to
// the broker: a principal set on the request reaches every procedure call.
#include <gtest/gtest.h>

#include "admin_routes_support.h"

using namespace queen;

namespace {

struct TenantRoutes : ::testing::Test, test::AdminRoutesFixture {
  const auth::Principal acme{Tenant("acme"), std::string("alice"), auth::AccessLevel::ReadWrite};
};

constexpr const char* kPartition = "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2";

}  // namespace

TEST_F(TenantRoutes, PushStampsTheSubjectAndIgnoresAClientProducerSub) {
  const http::Response r = call("POST", "/api/v1/push",
                                R"({"items":[{"queue":"orders","payload":1,"producerSub":"mallory"}]})", "", acme);
  EXPECT_EQ(r.status, 201) << r.body;
  ASSERT_EQ(db.push_origins.size(), 1u);
  EXPECT_EQ(db.push_origins[0], (db::PushOrigin{Tenant("acme"), std::string("alice")}));
  EXPECT_EQ(db.last_push_items.find("mallory"), std::string::npos) << db.last_push_items;
}

TEST_F(TenantRoutes, AnonymousPushesAreTheDefaultTenantsWithoutSubject) {
  call("POST", "/api/v1/push", R"({"items":[{"queue":"orders","producerSub":"mallory"}]})");
  ASSERT_EQ(db.push_origins.size(), 1u);
  EXPECT_EQ(db.push_origins[0], (db::PushOrigin{Tenant::default_tenant(), std::nullopt}));
}

TEST_F(TenantRoutes, TransactionsCarryTenantAndSubject) {
  call("POST", "/api/v1/transaction", R"({"operations":[{"type":"push","items":[{"queue":"q"}]}]})", "", acme);
  EXPECT_EQ(db.last_tenant, "acme");
  EXPECT_EQ(db.last_producer_sub, std::optional<std::string>("alice"));
}

TEST_F(TenantRoutes, AckLeaseConfigureDlqAndDeleteAreScopedToTheTenant) {
  const std::string ack = std::string(R"({"transactionId":"t","partitionId":")") + kPartition + "\"}";
  EXPECT_EQ(call("POST", "/api/v1/ack", ack, "", acme).status, 200);
  EXPECT_EQ(call("POST", "/api/v1/lease/01a22f8f-3f55-72c4-9932-3b009a4ea184/extend", "{}", "", acme).status, 200);
  EXPECT_EQ(call("POST", "/api/v1/configure", R"({"queue":"orders"})", "", acme).status, 200);
  EXPECT_EQ(db.call_tenants, (std::vector<std::string>{"acme", "acme", "acme"}));
  EXPECT_EQ(call("GET", "/api/v1/dlq", "", "queue=orders", acme).status, 200);
  ASSERT_EQ(db.dlq_calls.size(), 1u);
  EXPECT_EQ(db.dlq_calls[0].tenant.name(), "acme");
  EXPECT_EQ(call("DELETE", "/api/v1/resources/queues/orders", "", "", acme).status, 200);
  EXPECT_EQ(db.last_tenant, "acme");
}
