#include "crypto/payload_cipher.h"

#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace queen::crypto {
namespace {

constexpr int kEnvelopeVersion = 1;
// Domain separation: the key id is a hash of this label and the key, so it
// reveals nothing usable about the key and cannot collide with other hashes of it.
constexpr std::string_view kKeyIdLabel = "queen payload key id v1:";

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext new_context() {
  CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) throw std::runtime_error("OpenSSL: cannot allocate a cipher context");
  return ctx;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string key_id_of(const std::array<unsigned char, kKeyBytes>& key) {
  std::string input(kKeyIdLabel);
  input.append(reinterpret_cast<const char*>(key.data()), key.size());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (EVP_Digest(input.data(), input.size(), digest, &digest_size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (std::size_t i = 0; i < kKeyIdHexChars / 2; ++i) {
    id += kHex[digest[i] >> 4];
    id += kHex[digest[i] & 0x0f];
  }
  return id;
}

// The bytes of one base64 field of the envelope, of exactly `expected` bytes
// when expected > 0.
std::optional<std::vector<unsigned char>> envelope_bytes(const nlohmann::json& envelope, const char* field,
                                                         std::size_t expected) {
  const auto it = envelope.find(field);
  if (it == envelope.end() || !it->is_string()) return std::nullopt;
  auto bytes = base64_decode(it->get_ref<const std::string&>());
  if (!bytes || (expected > 0 && bytes->size() != expected)) return std::nullopt;
  return bytes;
}

DecryptResult failure(std::string error) {
  DecryptResult r;
  r.error = std::move(error);
  return r;
}

}  // namespace

KeyParseResult parse_key_hex(std::string_view hex) {
  KeyParseResult result;
  if (hex.size() != kKeyHexChars) {
    result.problem = "must be exactly 64 hexadecimal characters (32 bytes)";
    return result;
  }
  PayloadKey key;
  for (std::size_t i = 0; i < kKeyBytes; ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      result.problem = "must contain hexadecimal characters only (0-9, a-f)";
      return result;
    }
    key.bytes[i] = static_cast<unsigned char>(high << 4 | low);
  }
  key.id = key_id_of(key.bytes);
  result.key = std::move(key);
  return result;
}

PayloadCipher::PayloadCipher(PayloadKey current, std::optional<PayloadKey> previous)
    : current_(std::move(current)), previous_(std::move(previous)) {}

const PayloadKey* PayloadCipher::key_by_id(const std::string& id) const {
  if (current_ && current_->id == id) return &*current_;
  if (previous_ && previous_->id == id) return &*previous_;
  return nullptr;
}

std::string PayloadCipher::encrypt(std::string_view plaintext) const {
  if (!current_) throw std::logic_error("PayloadCipher::encrypt without a key");
  unsigned char nonce[kNonceBytes];
  if (RAND_bytes(nonce, sizeof nonce) != 1) throw std::runtime_error("OpenSSL: no randomness for a nonce");
  std::vector<unsigned char> ciphertext(plaintext.size() + 16);
  unsigned char tag[kTagBytes];
  int written = 0;
  int final_written = 0;
  const CipherContext ctx = new_context();
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonceBytes), nullptr) != 1 ||
      EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, current_->bytes.data(), nonce) != 1 ||
      EVP_EncryptUpdate(ctx.get(), ciphertext.data(), &written,
                        reinterpret_cast<const unsigned char*>(plaintext.data()),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), ciphertext.data() + written, &final_written) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes), tag) != 1) {
    throw std::runtime_error("OpenSSL: AES-256-GCM encryption failed");
  }
  const auto ct_size = static_cast<std::size_t>(written + final_written);
  std::string out = "{\"v\":1,\"kid\":\"" + current_->id + "\",\"iv\":\"";
  out += base64_encode(nonce, sizeof nonce);
  out += "\",\"ct\":\"";
  out += base64_encode(ciphertext.data(), ct_size);
  out += "\",\"tag\":\"";
  out += base64_encode(tag, sizeof tag);
  out += "\"}";
  return out;
}

DecryptResult PayloadCipher::decrypt(std::string_view envelope_json) const {
  const nlohmann::json envelope = nlohmann::json::parse(envelope_json, nullptr, /*allow_exceptions=*/false);
  if (!envelope.is_object()) return failure("malformed envelope: not a JSON object");
  const auto version = envelope.find("v");
  if (version == envelope.end() || !version->is_number_integer() || version->get<int>() != kEnvelopeVersion) {
    return failure("malformed envelope: unknown version");
  }
  const auto kid = envelope.find("kid");
  if (kid == envelope.end() || !kid->is_string()) return failure("malformed envelope: no key id");
  const auto nonce = envelope_bytes(envelope, "iv", kNonceBytes);
  const auto ciphertext = envelope_bytes(envelope, "ct", 0);
  auto tag = envelope_bytes(envelope, "tag", kTagBytes);
  if (!nonce || !ciphertext || !tag) return failure("malformed envelope: iv, ct or tag missing or of the wrong size");
  const PayloadKey* key = key_by_id(kid->get_ref<const std::string&>());
  if (key == nullptr) return failure("unknown key id (neither the current nor the previous key)");

  std::vector<unsigned char> plaintext(ciphertext->size() + 16);
  int written = 0;
  int final_written = 0;
  const CipherContext ctx = new_context();
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonceBytes), nullptr) != 1 ||
      EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key->bytes.data(), nonce->data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), plaintext.data(), &written, ciphertext->data(),
                        static_cast<int>(ciphertext->size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), tag->data()) != 1) {
    return failure("decryption failed");
  }
  // The tag is checked here: a changed nonce, ciphertext or tag fails.
  if (EVP_DecryptFinal_ex(ctx.get(), plaintext.data() + written, &final_written) != 1) {
    return failure("authentication failed (GCM tag mismatch): the ciphertext was altered or the key is wrong");
  }
  DecryptResult r;
  r.ok = true;
  r.plaintext.assign(reinterpret_cast<const char*>(plaintext.data()), static_cast<std::size_t>(written + final_written));
  return r;
}

CipherFromConfig cipher_from_config(const std::string& current_hex, const std::string& previous_hex) {
  CipherFromConfig out;
  // The previous key without a current one is a configuration rule (src/config), not a key's shape.
  if (current_hex.empty()) return out;
  KeyParseResult current = parse_key_hex(current_hex);
  if (!current.key) out.errors.push_back("QUEEN_ENCRYPTION_KEY=*** " + current.problem);
  std::optional<PayloadKey> previous;
  if (!previous_hex.empty()) {
    KeyParseResult parsed = parse_key_hex(previous_hex);
    if (parsed.key) {
      previous = std::move(parsed.key);
    } else {
      out.errors.push_back("QUEEN_ENCRYPTION_KEY_PREVIOUS=*** " + parsed.problem);
    }
  }
  if (out.errors.empty()) out.cipher = PayloadCipher(std::move(*current.key), std::move(previous));
  return out;
}

std::string base64_encode(const unsigned char* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::vector<unsigned char>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                          c == '/';
    if (c == '=') {
      // only as the last one or two characters
      if (i + 2 < text.size()) return std::nullopt;
      ++padding;
    } else if (!alphabet || padding > 0) {
      return std::nullopt;
    }
  }
  std::vector<unsigned char> out(text.size() / 4 * 3);
  if (text.empty()) return out;
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || static_cast<std::size_t>(n) < padding) return std::nullopt;
  // EVP_DecodeBlock counts the bytes the padding stands for.
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

}  // namespace queen::crypto
