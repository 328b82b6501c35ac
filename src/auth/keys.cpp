#include "auth/keys.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/param_build.h>

#include "auth/base64url.h"
#include "auth/bounded_json.h"

namespace queen::auth {
namespace {

constexpr int kMaxJwksDepth = 8;
constexpr std::size_t kEd25519KeyBytes = 32;

std::shared_ptr<EVP_PKEY> own(EVP_PKEY* key) { return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free); }

// Checks the key is one the verifier supports and returns its type.
KeyType checked_type(EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      if (EVP_PKEY_get_bits(key) < kMinRsaKeyBits) {
        throw KeyError("RSA key of " + std::to_string(EVP_PKEY_get_bits(key)) + " bits: at least " +
                       std::to_string(kMinRsaKeyBits) + " are required");
      }
      return KeyType::Rsa;
    case EVP_PKEY_ED25519: return KeyType::Ed25519;
    default: throw KeyError("unsupported key type: only RSA and Ed25519 public keys are accepted");
  }
}

std::string unescape_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
      out.push_back('\n');
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string member(const nlohmann::json& jwk, const char* name) {
  const auto it = jwk.find(name);
  return it != jwk.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string decoded_member(const nlohmann::json& jwk, const char* name) {
  const std::optional<std::string> bytes = base64url_decode(member(jwk, name));
  if (!bytes || bytes->empty()) throw KeyError(std::string("JWK member '") + name + "' is missing or not base64url");
  return *bytes;
}

std::shared_ptr<EVP_PKEY> rsa_from_jwk(const nlohmann::json& jwk) {
  const std::string n = decoded_member(jwk, "n");
  const std::string e = decoded_member(jwk, "e");
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_n(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr), BN_free);
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_e(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr), BN_free);
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> builder(OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free);
  if (!bn_n || !bn_e || !builder || !OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    throw KeyError("cannot build an RSA key from the JWK");
  }
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(builder.get()),
                                                                  OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr), EVP_PKEY_CTX_free);
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    throw KeyError("the JWK is not a valid RSA public key");
  }
  return own(key);
}

std::shared_ptr<EVP_PKEY> ed25519_from_jwk(const nlohmann::json& jwk) {
  if (member(jwk, "crv") != "Ed25519") throw KeyError("OKP key with a curve other than Ed25519");
  const std::string x = decoded_member(jwk, "x");
  if (x.size() != kEd25519KeyBytes) throw KeyError("Ed25519 JWK 'x' is not 32 bytes");
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                              reinterpret_cast<const unsigned char*>(x.data()), x.size());
  if (!key) throw KeyError("the JWK is not a valid Ed25519 public key");
  return own(key);
}

// One JWK -> a key, or nullopt for a key this broker does not verify with.
std::optional<PublicKey> key_from_jwk(const nlohmann::json& jwk) {
  if (!jwk.is_object()) return std::nullopt;
  const std::string use = member(jwk, "use");
  if (!use.empty() && use != "sig") return std::nullopt;
  const std::string kty = member(jwk, "kty");
  std::shared_ptr<EVP_PKEY> key;
  if (kty == "RSA") {
    key = rsa_from_jwk(jwk);
  } else if (kty == "OKP") {
    key = ed25519_from_jwk(jwk);
  } else {
    return std::nullopt;
  }
  return PublicKey(key, checked_type(key.get()), member(jwk, "alg"));
}

}  // namespace

PublicKey load_pem_public_key(std::string_view pem) {
  const std::string text = unescape_newlines(pem);
  EVP_PKEY* key = nullptr;
  std::unique_ptr<OSSL_DECODER_CTX, decltype(&OSSL_DECODER_CTX_free)> decoder(
      OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", nullptr, nullptr, EVP_PKEY_PUBLIC_KEY, nullptr, nullptr),
      OSSL_DECODER_CTX_free);
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t size = text.size();
  if (!decoder || !OSSL_DECODER_from_data(decoder.get(), &data, &size) || !key) {
    throw KeyError("JWT_PUBLIC_KEY is not a PEM public key");
  }
  std::shared_ptr<EVP_PKEY> owned = own(key);
  return PublicKey(owned, checked_type(owned.get()), "");
}

Jwks parse_jwks(std::string_view document) {
  if (document.size() > kMaxJwksBytes) throw KeyError("JWKS document larger than 1 MiB");
  const std::optional<nlohmann::json> parsed = parse_bounded_json(document, kMaxJwksDepth).value;
  if (!parsed || !parsed->is_object()) throw KeyError("JWKS document is not a JSON object");
  const auto keys = parsed->find("keys");
  if (keys == parsed->end() || !keys->is_array()) throw KeyError("JWKS document has no 'keys' array");
  if (keys->size() > kMaxJwksKeys) throw KeyError("JWKS document has more than 100 keys");
  Jwks jwks;
  for (const nlohmann::json& jwk : *keys) {
    try {
      const std::string kid = jwk.is_object() ? member(jwk, "kid") : std::string();
      std::optional<PublicKey> key = kid.empty() ? std::nullopt : key_from_jwk(jwk);
      if (key) {
        jwks.by_kid.insert_or_assign(kid, std::move(*key));
      } else {
        ++jwks.skipped;
      }
    } catch (const KeyError&) {
      ++jwks.skipped;
    }
  }
  return jwks;
}

}  // namespace queen::auth
