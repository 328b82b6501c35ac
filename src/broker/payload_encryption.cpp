#include "broker/payload_encryption.h"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "db/db_error.h"
#include "db/item_index.h"
#include "util/json_text.h"

namespace queen::broker {
namespace {

constexpr auto kRefreshRetryAfter = std::chrono::seconds(2);

// The keys were judged by the boot's configuration check, which refuses any error.
crypto::PayloadCipher cipher_of(const config::Config& config) {
  crypto::CipherFromConfig built = crypto::cipher_from_config(config.encryption_key, config.encryption_key_previous);
  if (!built.errors.empty()) throw std::invalid_argument("encryption: " + built.errors.front());
  if (built.cipher.enabled()) spdlog::info("encryption: AES-256-GCM payload encryption is available");
  return std::move(built.cipher);
}

}  // namespace

PayloadEncryption::PayloadEncryption(const config::Config& config, db::Procedures& db)
    : cipher_(cipher_of(config)),
      db_(db),
      refresher_(
          "encryption-set", util::real_clock(),
          [this, interval = std::chrono::milliseconds(config.encryption_refresh_ms)] {
            try {
              refresh();
            } catch (const db::DbError& e) {
              // The last list stays in use; the database's refusal covers what it misses.
              spdlog::debug("encryption: cannot re-read the encrypted queue list: {}", e.what());
            }
            return refresher_.clock().now() + interval;
          },
          kRefreshRetryAfter) {}

PayloadEncryption::~PayloadEncryption() { stop(); }

std::string no_key_refusal(const std::string& queue) {
  return "queue '" + queue + "' requires encryption and this broker has no QUEEN_ENCRYPTION_KEY";
}

void PayloadEncryption::start() { refresher_.start(); }

void PayloadEncryption::stop() { refresher_.stop(); }

void PayloadEncryption::refresh_soon() { refresher_.wake(); }

void PayloadEncryption::refresh() {
  std::set<std::pair<Tenant, std::string>> fresh;
  for (auto& q : db_.encrypted_queue_names()) fresh.emplace(std::move(q.tenant), std::move(q.queue));
  spdlog::debug("encryption: encrypted queue list re-read ({} queue(s))", fresh.size());
  std::unique_lock lock(mutex_);
  queues_.swap(fresh);
}

bool PayloadEncryption::wants(const Tenant& tenant, const std::string& queue) const {
  std::shared_lock lock(mutex_);
  return queues_.count(std::make_pair(tenant, queue)) > 0;
}

void PayloadEncryption::seal(PushItem& item) const {
  if (item.encrypted) return;
  item.payload_json = cipher_.encrypt(item.payload_json);
  item.encrypted = true;
  item.key_held = false;
}

void PayloadEncryption::seal_items(const Tenant& tenant, std::vector<PushItem>& items) const {
  if (!enabled()) return;
  for (auto& item : items) {
    if (item.encrypted) continue;
    if (wants(tenant, item.queue)) {
      seal(item);
    } else {
      item.key_held = true;
    }
  }
}

std::vector<std::size_t> PayloadEncryption::unsealable(const Tenant& tenant,
                                                       const std::vector<PushItem>& items) const {
  std::vector<std::size_t> refused;
  if (enabled()) return refused;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].encrypted && wants(tenant, items[i].queue)) refused.push_back(i);
  }
  return refused;
}

void PayloadEncryption::fail_refused(const Tenant& tenant, std::vector<db::PushRow>& rows) {
  if (enabled()) return;
  std::set<std::string> learned;
  for (auto& row : rows) {
    if (row.status != kEncryptionRequiredStatus) continue;
    const std::string& queue = row.queue_name;
    if (learned.insert(queue).second && !wants(tenant, queue)) {
      spdlog::warn("encryption: queue {} wants encryption (learned from the database) and this broker has no "
                   "QUEEN_ENCRYPTION_KEY: its pushes are refused",
                   queue);
      note_configured(tenant, queue, true);
    }
    row.status = "failed";
    row.error = no_key_refusal(queue);
  }
}

void PayloadEncryption::note_configured(const Tenant& tenant, const std::string& queue,
                                        bool encryption_enabled) {
  std::unique_lock lock(mutex_);
  if (encryption_enabled) {
    queues_.emplace(tenant, queue);
  } else {
    queues_.erase(std::make_pair(tenant, queue));
  }
}

RefusedPlaintext PayloadEncryption::seal_refused(const Tenant& tenant, std::vector<PushItem>& items,
                                                const std::vector<db::PushRow>& rows, const char* what) {
  RefusedPlaintext refused;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].status == kEncryptionRequiredStatus) refused.rows.push_back(r);
  }
  if (refused.rows.empty()) return refused;
  std::sort(refused.rows.begin(), refused.rows.end(),
            [&rows](std::size_t a, std::size_t b) { return rows[a].idx < rows[b].idx; });
  refused.resend.reserve(refused.rows.size());
  std::set<std::string> learned;
  for (const std::size_t r : refused.rows) {
    PushItem& item = items[db::item_index_of(rows[r].idx, items.size(), what)];
    if (learned.insert(item.queue).second) {
      spdlog::info("encryption: queue {} wants encryption (learned from the database), re-sending encrypted",
                   item.queue);
      note_configured(tenant, item.queue, true);
    }
    seal(item);
    refused.resend.push_back(item);
  }
  return refused;
}

void take_resent_answers(std::vector<db::PushRow>& rows, const std::vector<std::size_t>& refused_rows,
                         std::vector<db::PushRow> answers) {
  for (auto& answer : answers) {
    if (answer.idx < 0 || static_cast<std::size_t>(answer.idx) >= refused_rows.size()) continue;
    db::PushRow& row = rows[refused_rows[static_cast<std::size_t>(answer.idx)]];
    const int original_idx = row.idx;
    row = std::move(answer);
    row.idx = original_idx;
  }
}

std::vector<UndecryptableMessage> PayloadEncryption::open_popped(std::vector<db::PoppedMessage>& messages) const {
  std::vector<UndecryptableMessage> bad;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    db::PoppedMessage& m = messages[i];
    if (m.is_encrypted) {
      crypto::DecryptResult opened = cipher_.decrypt(m.payload_json);
      if (!enabled()) opened.error = "this broker has no QUEEN_ENCRYPTION_KEY";
      if (!opened.ok) {
        spdlog::error("encryption: message {} of queue {} partition {} ({}) cannot be decrypted: {}; it goes to "
                      "the DLQ",
                      m.transaction_id, m.queue_name, m.partition_name, m.partition_id, opened.error);
        bad.push_back({m.partition_id, m.transaction_id, m.lease_id, "undecryptable payload: " + opened.error});
        continue;
      }
      m.payload_json = std::move(opened.plaintext);
    }
    if (kept != i) messages[kept] = std::move(m);
    ++kept;
  }
  messages.resize(kept);
  return bad;
}

void PayloadEncryption::open_dlq(std::vector<db::DlqEntry>& entries) const {
  for (auto& e : entries) {
    if (!e.is_encrypted || e.payload_omitted) continue;  // an omitted payload is null: nothing to open
    crypto::DecryptResult opened = cipher_.decrypt(e.payload_json);
    if (opened.ok) {
      e.payload_json = std::move(opened.plaintext);
    } else {
      spdlog::debug("encryption: DLQ entry {} listed as stored: {}", e.transaction_id, opened.error);
    }
  }
}

std::optional<std::string> PayloadEncryption::open_payload(const std::string& envelope_json) const {
  crypto::DecryptResult opened = cipher_.decrypt(envelope_json);
  if (!opened.ok) return std::nullopt;
  return std::move(opened.plaintext);
}

std::string encode_undecryptable(const std::vector<UndecryptableMessage>& messages) {
  std::string out = "[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const UndecryptableMessage& m = messages[i];
    if (i) out += ',';
    out += "{\"partitionId\":";
    util::append_json_string(out, m.partition_id);
    util::append_json_member(out, "transactionId", m.transaction_id);
    util::append_json_member_if_set(out, "leaseId", m.lease_id);
    util::append_json_member(out, "error", m.reason);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace queen::broker
