#pragma once
// Payload encryption as the broker applies it (docs/encryption.md): which
// queues want it, sealing push items before they reach PostgreSQL or the
// spool, and opening what pop and the DLQ listing read.
//
// The set of encryptionEnabled queues is kept here, keyed by (tenant, queue),
// filled by configure on this broker, by a periodic re-read of
// queen.encrypted_queue_names, and by the database itself: a broker holding a
// key marks its plaintext items `keyHeld`, and store_messages refuses them
// (encryption_required) when the queue wants encryption, so a stale set costs
// one re-send, never a plaintext row. A broker without a key keeps the set
// too: it refuses the items of those queues (it cannot seal them) before they
// reach the database or the spool, and turns the database's refusal of a
// plaintext item into that item's failure.
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "broker/types.h"
#include "config/config.h"
#include "crypto/payload_cipher.h"
#include "db/procedures.h"
#include "tenant/tenant.h"
#include "util/background_worker.h"

namespace queen::broker {

inline constexpr const char* kEncryptionRequiredStatus = "encryption_required";
// Part of the error store_messages gives a refused item; a transaction's rollback reason carries it.
inline constexpr const char* kPlaintextRefusedText = "plaintext refused, the broker must encrypt";
// Whether a rolled-back result (a transaction's, a stream cycle's) was refused for plaintext.
inline bool names_refused_plaintext(const std::string& result_json) {
  return result_json.find(kPlaintextRefusedText) != std::string::npos;
}
// What configure answers (`warning`) when a queue asks for encryption on a broker without a key.
inline constexpr const char* kNoEncryptionKeyWarning =
    "encryptionEnabled is set but this broker has no QUEEN_ENCRYPTION_KEY: pushes to this queue are refused by "
    "brokers without a key (nothing is stored in plaintext)";
// The error of a push item a broker without a key cannot store: its queue wants encryption.
std::string no_key_refusal(const std::string& queue);

// The items of one push_messages call that the database refused as plaintext
// (encryption_required): what the caller sends once more.
struct RefusedPlaintext {
  std::vector<std::size_t> rows;  // positions in the call's answer rows, in item order
  std::vector<PushItem> resend;   // the refused items, sealed, in the same order
};

// A popped message that could not be decrypted, for the DLQ.
struct UndecryptableMessage {
  std::string partition_id;
  std::string transaction_id;
  std::optional<std::string> lease_id;
  std::string reason;
};

class PayloadEncryption {
 public:
  // Throws std::invalid_argument on keys the boot's configuration check refuses (never quoting them).
  PayloadEncryption(const config::Config& config, db::Procedures& db);
  ~PayloadEncryption();
  PayloadEncryption(const PayloadEncryption&) = delete;
  PayloadEncryption& operator=(const PayloadEncryption&) = delete;

  bool enabled() const { return cipher_.enabled(); }
  // The periodic re-read of the encrypted queue set (with or without a key).
  void start();
  void stop();
  // Re-reads the set now (one call), e.g. after the database refused plaintext.
  void refresh();
  // Asks the background re-read to run now (never blocks).
  void refresh_soon();

  // Push: encrypts the items of queues in the set, flags the others keyHeld.
  void seal_items(const Tenant& tenant, std::vector<PushItem>& items) const;
  // Without a key: the positions of the plaintext items whose queue is in
  // the set, which this broker must refuse (no_key_refusal); none with a key.
  std::vector<std::size_t> unsealable(const Tenant& tenant, const std::vector<PushItem>& items) const;
  // Without a key: the rows the database refused as plaintext become failures
  // naming the missing key, and their queues join the set.
  void fail_refused(const Tenant& tenant, std::vector<db::PushRow>& rows);
  // Encrypts one item unless it already is.
  void seal(PushItem& item) const;
  // What configure learned: the queue's encryptionEnabled option.
  void note_configured(const Tenant& tenant, const std::string& queue, bool encryption_enabled);
  // After push_messages answered `rows` for `items` (of `tenant`): the refused
  // items' queues join the set, and the items are sealed (in `items` too) for
  // the re-send. `what` names the call for an answer that names no item.
  RefusedPlaintext seal_refused(const Tenant& tenant, std::vector<PushItem>& items,
                                const std::vector<db::PushRow>& rows, const char* what);

  // Pop: decrypts in place; undecryptable messages are removed and returned.
  std::vector<UndecryptableMessage> open_popped(std::vector<db::PoppedMessage>& messages) const;
  // DLQ listing: decrypts in place; an entry that cannot be opened stays as stored.
  void open_dlq(std::vector<db::DlqEntry>& entries) const;
  // One stored envelope opened (message detail, traces by name); nullopt when it cannot be.
  std::optional<std::string> open_payload(const std::string& envelope_json) const;

 private:
  bool wants(const Tenant& tenant, const std::string& queue) const;

  crypto::PayloadCipher cipher_;
  db::Procedures& db_;
  mutable std::shared_mutex mutex_;
  std::set<std::pair<Tenant, std::string>> queues_;  // (tenant, queue), guarded by mutex_
  util::BackgroundWorker refresher_;
};

// The answers of a re-send (answer k is for refused.rows[k]) in place of the
// refusals, each keeping the index of the item in the original call.
void take_resent_answers(std::vector<db::PushRow>& rows, const std::vector<std::size_t>& refused_rows,
                         std::vector<db::PushRow> answers);

// The undecryptable messages as queen.dead_letter_undecryptable's items.
std::string encode_undecryptable(const std::vector<UndecryptableMessage>& messages);

}  // namespace queen::broker
