// KvStore: one KV procedure call per request, reads through the Read lane,
// and every database failure answered by the one mapping (broker_error_of).
#include "broker/kv_store.h"

#include <gtest/gtest.h>

#include "broker/broker_error.h"
#include "use_case_fakes.h"

namespace queen::broker {
namespace {

using testing::KvFake;
using testing::OpenReadGate;

class KvStoreTest : public ::testing::Test {
 protected:
  KvStoreTest() { store.read_through(gate.reads); }
  KvFake db;
  OpenReadGate gate;
  KvStore store{db};
};

// The kind of BrokerError a put answers while the database fails with `sqlstate`.
ErrorKind kind_of_put_failure(KvStore& store, KvFake& db, const char* sqlstate) {
  db.failure = db::DbError(std::string("ERROR:  failed with ") + sqlstate, sqlstate);
  try {
    store.put("k", "1", std::nullopt, Tenant("acme"));
  } catch (const BrokerError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no BrokerError for " << sqlstate;
  return ErrorKind::Internal;
}

TEST_F(KvStoreTest, PutStoresTheValueForTheTenantAndAnswersItsExpiry) {
  db.expires_at_us = 1700000000000000;
  const KvValue stored = store.put("config", "{\"a\":1}", 5000, Tenant("acme"));
  ASSERT_EQ(db.sets.size(), 1u);
  EXPECT_EQ(db.sets[0].key, "config");
  EXPECT_EQ(db.sets[0].value_json, "{\"a\":1}");
  EXPECT_EQ(db.sets[0].ttl_ms, 5000);
  EXPECT_EQ(db.sets[0].tenant, "acme");
  EXPECT_EQ(stored.key, "config");
  EXPECT_EQ(stored.value_json, "{\"a\":1}");
  EXPECT_EQ(stored.expires_at_us, 1700000000000000);
}

TEST_F(KvStoreTest, GetAnswersTheStoredValueOrNothing) {
  EXPECT_FALSE(store.get("missing", Tenant("acme")).has_value());
  db.stored = db::KvEntry{"[1,2]", std::nullopt};
  const std::optional<KvValue> found = store.get("list", Tenant::default_tenant());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->key, "list");
  EXPECT_EQ(found->value_json, "[1,2]");
  EXPECT_FALSE(found->expires_at_us.has_value());
  EXPECT_EQ(db.reads_of, (std::vector<std::string>{"acme/missing", "/list"}));
}

TEST_F(KvStoreTest, RemoveAnswersWhetherALiveValueWasDeleted) {
  EXPECT_FALSE(store.remove("k", Tenant("acme")));
  db.removed = true;
  EXPECT_TRUE(store.remove("k", Tenant("acme")));
}

TEST_F(KvStoreTest, DatabaseFailuresAreMappedOnce) {
  EXPECT_EQ(kind_of_put_failure(store, db, "22023"), ErrorKind::BadRequest);
  EXPECT_EQ(kind_of_put_failure(store, db, "QQ429"), ErrorKind::TooManyRequests);
  EXPECT_EQ(kind_of_put_failure(store, db, ""), ErrorKind::Unavailable);
  EXPECT_EQ(kind_of_put_failure(store, db, "57014"), ErrorKind::Unavailable);
  EXPECT_EQ(kind_of_put_failure(store, db, "42883"), ErrorKind::Internal);
}

TEST_F(KvStoreTest, AFailedReadIsMappedLikeAWrite) {
  db.failure = db::DbError("ERROR:  bad key", "22023");
  try {
    store.get("k", Tenant("acme"));
    FAIL() << "no BrokerError";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadRequest);
    EXPECT_STREQ(e.what(), "bad key");
  }
}

}  // namespace
}  // namespace queen::broker
