#pragma once
// Payload encryption at rest (docs/encryption.md): AES-256-GCM through OpenSSL
// EVP, one fresh random 96-bit nonce per message. The stored form is a small
// JSON envelope
//   {"v":1,"kid":"<key id>","iv":"<base64>","ct":"<base64>","tag":"<base64>"}
// whose key id is derived from a hash of the key (never the key itself), so a
// message names the key that sealed it and a rotated broker picks the right one.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queen::crypto {

inline constexpr std::size_t kKeyBytes = 32;       // AES-256
inline constexpr std::size_t kKeyHexChars = 64;    // QUEEN_ENCRYPTION_KEY
inline constexpr std::size_t kNonceBytes = 12;     // 96-bit GCM nonce
inline constexpr std::size_t kTagBytes = 16;       // 128-bit GCM tag
inline constexpr std::size_t kKeyIdHexChars = 16;  // 64 bits of SHA-256 over the key

struct PayloadKey {
  std::array<unsigned char, kKeyBytes> bytes{};
  std::string id;  // kKeyIdHexChars lowercase hex
};

// A key from its 64-hex-character text, or a reason it was refused. The reason
// never quotes the text (it is a secret).
struct KeyParseResult {
  std::optional<PayloadKey> key;
  std::string problem;
};
KeyParseResult parse_key_hex(std::string_view hex);

// The outcome of opening an envelope: the plaintext, or why it cannot be
// trusted (malformed envelope, unknown key id, authentication failure).
struct DecryptResult {
  bool ok = false;
  std::string plaintext;
  std::string error;
};

class PayloadCipher {
 public:
  // Disabled: encrypt() must not be called; decrypt() answers an error.
  PayloadCipher() = default;
  // `previous` only opens envelopes sealed before a rotation.
  PayloadCipher(PayloadKey current, std::optional<PayloadKey> previous);

  bool enabled() const { return current_.has_value(); }
  // The envelope of `plaintext` (JSON text). Throws std::runtime_error when
  // OpenSSL fails (no randomness), never returns a partial envelope.
  std::string encrypt(std::string_view plaintext) const;
  // Opens an envelope produced by encrypt() under the current or previous key.
  DecryptResult decrypt(std::string_view envelope_json) const;

 private:
  const PayloadKey* key_by_id(const std::string& id) const;

  std::optional<PayloadKey> current_;
  std::optional<PayloadKey> previous_;
};

// The cipher QUEEN_ENCRYPTION_KEY / QUEEN_ENCRYPTION_KEY_PREVIOUS describe: off
// when the current key is empty; none, and one error per malformed key (naming
// the variable, never the value), otherwise. The boot refuses any error.
struct CipherFromConfig {
  PayloadCipher cipher;
  std::vector<std::string> errors;
};
CipherFromConfig cipher_from_config(const std::string& current_hex, const std::string& previous_hex);

// Base64 (RFC 4648, padded) through OpenSSL's EVP codec.
std::string base64_encode(const unsigned char* data, std::size_t size);
// nullopt when `text` is not canonical padded base64.
std::optional<std::vector<unsigned char>> base64_decode(std::string_view text);

}  // namespace queen::crypto
