#pragma once
// Verification keys: a PEM public key (JWT_PUBLIC_KEY) or the keys of a JWKS
// document (JWT_JWKS_URL), held as OpenSSL EVP_PKEYs. A key is immutable once
// built, so any number of threads verify with it at once.
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace queen::auth {

enum class KeyType { Rsa, Ed25519 };

// Below this an RSA key is refused (NIST SP 800-57: 2048 bits).
inline constexpr int kMinRsaKeyBits = 2048;
// A JWKS document larger than this, or with more keys, is refused.
inline constexpr std::size_t kMaxJwksBytes = 1 << 20;
inline constexpr std::size_t kMaxJwksKeys = 100;

class PublicKey {
 public:
  PublicKey(std::shared_ptr<EVP_PKEY> key, KeyType type, std::string alg)
      : key_(std::move(key)), type_(type), alg_(std::move(alg)) {}
  KeyType type() const { return type_; }
  EVP_PKEY* get() const { return key_.get(); }
  // The JWK's `alg` member ("" when absent): a key pinned to one algorithm.
  const std::string& alg() const { return alg_; }

 private:
  std::shared_ptr<EVP_PKEY> key_;
  KeyType type_;
  std::string alg_;
};

class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An RSA (at least kMinRsaKeyBits) or Ed25519 public key in PEM (SubjectPublicKeyInfo,
// or PKCS#1 "RSA PUBLIC KEY"). A literal "\n" in the text counts as a line break
// (environment variables are often written on one line). Throws KeyError.
PublicKey load_pem_public_key(std::string_view pem);

// Keys of a JWKS document by `kid`: RSA (`n`, `e`) and OKP Ed25519 (`x`);
// keys meant for encryption (`use` other than "sig"), of other types or
// without a kid are skipped. Throws KeyError for a document that is not a
// JWKS (not JSON, no `keys` array, too large).
struct Jwks {
  std::map<std::string, PublicKey> by_kid;
  int skipped = 0;
};
Jwks parse_jwks(std::string_view document);

// Where the verifier finds a key by kid (the JWKS source in the broker, a fixed map in tests).
class KeyLookup {
 public:
  virtual ~KeyLookup() = default;
  // nullopt: unknown kid (the lookup may fetch the document again, off the request path).
  virtual std::optional<PublicKey> find(const std::string& kid) const = 0;
  // The only key of `type` when there is exactly one (a token without a kid).
  virtual std::optional<PublicKey> only_key_of(KeyType type) const = 0;
};

}  // namespace queen::auth
