#include "broker/payload_encryption.h"
#include "../fakes/procedures_fake.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "broker/encoding.h"

using namespace queen;
using namespace queen::broker;

namespace {

const std::string kKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

// Only the list of encrypted queues is asked for here.
class EncryptedQueuesDb : public queen::testing::ProceduresFake {
 public:
  std::vector<db::TenantQueue> encrypted;
  int list_calls = 0;

  using ProceduresFake::call;
  db::catalogue::Answer<db::catalogue::EncryptedQueueNames> call(db::catalogue::EncryptedQueueNames,
                                                                 const std::tuple<>&) override {
    ++list_calls;
    return encrypted;
  }
};

config::Config config_with_key(const std::string& key) {
  config::Config c = config::Config::defaults();
  c.encryption_key = key;
  c.encryption_refresh_ms = 3600000;
  return c;
}

PushItem item(const std::string& queue, const std::string& payload) {
  PushItem i;
  i.queue = queue;
  i.transaction_id = "t-" + queue;
  i.payload_json = payload;
  return i;
}

db::PoppedMessage popped(const std::string& txid, const std::string& payload, bool encrypted) {
  db::PoppedMessage m;
  m.transaction_id = txid;
  m.partition_id = "p-1";
  m.lease_id = "lease-1";
  m.payload_json = payload;
  m.is_encrypted = encrypted;
  return m;
}

TEST(PayloadEncryption, WithoutAKeyItemsAreNeverSealedAndThoseOfTheSetAreRefused) {
  EncryptedQueuesDb db;
  db.encrypted = {{Tenant::default_tenant(), "secret"}};
  PayloadEncryption encryption(config_with_key(""), db);
  encryption.refresh();
  std::vector<PushItem> items = {item("open", R"({"a":1})"), item("secret", R"({"a":2})")};
  encryption.seal_items(Tenant::default_tenant(), items);
  EXPECT_FALSE(encryption.enabled());
  for (const auto& i : items) {
    EXPECT_FALSE(i.encrypted);
    EXPECT_FALSE(i.key_held);
  }
  EXPECT_EQ(items[1].payload_json, R"({"a":2})");
  EXPECT_EQ(encryption.unsealable(Tenant::default_tenant(), items), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(encryption.unsealable(Tenant("acme"), items).empty());  // the set is per tenant
  encryption.note_configured(Tenant::default_tenant(), "secret", false);
  EXPECT_TRUE(encryption.unsealable(Tenant::default_tenant(), items).empty());
  encryption.note_configured(Tenant::default_tenant(), "open", true);
  EXPECT_EQ(encryption.unsealable(Tenant::default_tenant(), items), (std::vector<std::size_t>{0}));
}

TEST(PayloadEncryption, WithoutAKeyTheDatabasesRefusalIsTheItemsFailure) {
  EncryptedQueuesDb db;
  PayloadEncryption encryption(config_with_key(""), db);
  std::vector<db::PushRow> rows(2);
  rows[0].idx = 0;
  rows[0].status = kEncryptionRequiredStatus;
  rows[0].queue_name = "late";
  rows[0].error = "queue late has encryptionEnabled: plaintext refused, and the caller holds no encryption key";
  rows[1].idx = 1;
  rows[1].status = "queued";
  rows[1].queue_name = "open";
  encryption.fail_refused(Tenant::default_tenant(), rows);
  EXPECT_EQ(rows[0].status, "failed");
  EXPECT_EQ(rows[0].error,
            std::optional<std::string>("queue 'late' requires encryption and this broker has no QUEEN_ENCRYPTION_KEY"));
  EXPECT_EQ(rows[1].status, "queued");
  EXPECT_EQ(encryption.unsealable(Tenant::default_tenant(), {item("late", "{}")}), (std::vector<std::size_t>{0}));
}

TEST(PayloadEncryption, WithAKeyNothingIsRefusedBeforeTheDatabase) {
  EncryptedQueuesDb db;
  db.encrypted = {{Tenant::default_tenant(), "secret"}};
  PayloadEncryption encryption(config_with_key(kKey), db);
  encryption.refresh();
  EXPECT_TRUE(encryption.unsealable(Tenant::default_tenant(), {item("secret", "{}")}).empty());
  std::vector<db::PushRow> rows(1);
  rows[0].status = kEncryptionRequiredStatus;
  rows[0].queue_name = "secret";
  encryption.fail_refused(Tenant::default_tenant(), rows);
  EXPECT_EQ(rows[0].status, kEncryptionRequiredStatus);  // a broker with a key seals and re-sends instead
}

TEST(PayloadEncryption, SealsQueuesOfTheSetAndMarksTheOthersKeyHeld) {
  EncryptedQueuesDb db;
  db.encrypted = {{Tenant::default_tenant(), "secret"}};
  PayloadEncryption encryption(config_with_key(kKey), db);
  encryption.refresh();
  std::vector<PushItem> items = {item("secret", R"({"card":"4111"})"), item("open", R"({"a":1})")};
  encryption.seal_items(Tenant::default_tenant(), items);
  EXPECT_TRUE(items[0].encrypted);
  EXPECT_FALSE(items[0].key_held);
  EXPECT_EQ(items[0].payload_json.find("4111"), std::string::npos);
  EXPECT_FALSE(items[1].encrypted);
  EXPECT_TRUE(items[1].key_held);
  const auto encoded = nlohmann::json::parse(encode_push_item(items[1]));
  EXPECT_EQ(encoded["keyHeld"], true);
  EXPECT_FALSE(nlohmann::json::parse(encode_push_item(items[0])).contains("keyHeld"));

  // The set is per tenant.
  std::vector<PushItem> other_tenant = {item("secret", "{}")};
  encryption.seal_items(Tenant("acme"), other_tenant);
  EXPECT_FALSE(other_tenant[0].encrypted);

  // Configure turning it off on this broker takes effect at once.
  encryption.note_configured(Tenant::default_tenant(), "secret", false);
  std::vector<PushItem> after = {item("secret", "{}")};
  encryption.seal_items(Tenant::default_tenant(), after);
  EXPECT_FALSE(after[0].encrypted);
}

TEST(PayloadEncryption, PopOpensMessagesAndSetsAsideThoseItCannot) {
  EncryptedQueuesDb db;
  PayloadEncryption encryption(config_with_key(kKey), db);
  PushItem sealed = item("q", R"({"n":1})");
  encryption.seal(sealed);
  nlohmann::json tampered = nlohmann::json::parse(sealed.payload_json);
  tampered["tag"] = "AAAAAAAAAAAAAAAAAAAAAA==";

  std::vector<db::PoppedMessage> messages = {popped("t1", sealed.payload_json, true),
                                             popped("t2", tampered.dump(), true),
                                             popped("t3", R"({"plain":true})", false),
                                             popped("t4", R"({"not":"an envelope"})", true)};
  const std::vector<UndecryptableMessage> bad = encryption.open_popped(messages);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].transaction_id, "t1");
  EXPECT_EQ(messages[0].payload_json, R"({"n":1})");
  EXPECT_EQ(messages[1].payload_json, R"({"plain":true})");
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].transaction_id, "t2");
  EXPECT_NE(bad[0].reason.find("authentication failed"), std::string::npos);
  EXPECT_EQ(bad[1].transaction_id, "t4");
  EXPECT_NE(bad[1].reason.find("malformed envelope"), std::string::npos);

  const auto items = nlohmann::json::parse(encode_undecryptable(bad));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["partitionId"], "p-1");
  EXPECT_EQ(items[0]["transactionId"], "t2");
  EXPECT_EQ(items[0]["leaseId"], "lease-1");
  EXPECT_EQ(items[0]["error"], bad[0].reason);
}

TEST(PayloadEncryption, ABrokerWithoutAKeySaysSoForEncryptedMessages) {
  EncryptedQueuesDb db;
  PayloadEncryption keyed(config_with_key(kKey), db);
  PushItem sealed = item("q", "{}");
  keyed.seal(sealed);
  PayloadEncryption keyless(config_with_key(""), db);
  std::vector<db::PoppedMessage> messages = {popped("t1", sealed.payload_json, true)};
  const auto bad = keyless.open_popped(messages);
  EXPECT_TRUE(messages.empty());
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].reason.find("this broker has no QUEEN_ENCRYPTION_KEY"), std::string::npos) << bad[0].reason;
}

TEST(PayloadEncryption, DlqEntriesAreOpenedOrListedAsStored) {
  EncryptedQueuesDb db;
  PayloadEncryption encryption(config_with_key(kKey), db);
  PushItem sealed = item("q", R"({"dead":1})");
  encryption.seal(sealed);
  std::vector<db::DlqEntry> entries(2);
  entries[0].payload_json = sealed.payload_json;
  entries[0].is_encrypted = true;
  entries[1].payload_json = R"({"v":1,"kid":"x","iv":"","ct":"","tag":""})";
  entries[1].is_encrypted = true;
  encryption.open_dlq(entries);
  EXPECT_EQ(entries[0].payload_json, R"({"dead":1})");
  EXPECT_EQ(entries[1].payload_json, R"({"v":1,"kid":"x","iv":"","ct":"","tag":""})");
}

}  // namespace
