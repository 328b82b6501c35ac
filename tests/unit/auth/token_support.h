#pragma once
// Keys generated in the test with OpenSSL and tokens minted with them, the
// way an issuer would: header and claims as JSON, base64url, then signed.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "auth/base64url.h"

namespace queen::test {

inline std::shared_ptr<EVP_PKEY> generate_key(const char* type) {
  EVP_PKEY* key = std::string(type) == "RSA" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048))
                                             : EVP_PKEY_Q_keygen(nullptr, nullptr, type);
  if (!key) throw std::runtime_error("key generation failed");
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

inline std::string public_pem(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PUBKEY(bio.get(), key);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

inline std::string bn_param(EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  EVP_PKEY_get_bn_param(key, name, &bn);
  std::string bytes(static_cast<std::size_t>(BN_num_bytes(bn)), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(bytes.data()));
  BN_free(bn);
  return bytes;
}

inline nlohmann::json jwk_of(EVP_PKEY* key, const std::string& kid) {
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA) {
    return {{"kty", "RSA"}, {"kid", kid}, {"use", "sig"}, {"alg", "RS256"},
            {"n", auth::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_RSA_N))},
            {"e", auth::base64url_encode(bn_param(key, OSSL_PKEY_PARAM_RSA_E))}};
  }
  unsigned char raw[32];
  std::size_t size = sizeof raw;
  EVP_PKEY_get_raw_public_key(key, raw, &size);
  return {{"kty", "OKP"}, {"crv", "Ed25519"}, {"kid", kid},
          {"x", auth::base64url_encode(std::string(reinterpret_cast<char*>(raw), size))}};
}

inline std::string hs256(const std::string& secret, const std::string& input) {
  unsigned char mac[32];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &size);
  return std::string(reinterpret_cast<char*>(mac), size);
}

inline std::string sign_with(EVP_PKEY* key, const std::string& input) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const EVP_MD* md = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA ? EVP_sha256() : nullptr;
  EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key);
  std::size_t size = 0;
  EVP_DigestSign(ctx.get(), nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  std::string sig(size, '\0');
  EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &size,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  sig.resize(size);
  return sig;
}

inline std::string signing_input(const nlohmann::json& header, const nlohmann::json& claims) {
  return auth::base64url_encode(header.dump()) + "." + auth::base64url_encode(claims.dump());
}

inline std::string mint_hs256(const std::string& secret, const nlohmann::json& claims,
                              nlohmann::json header = {{"alg", "HS256"}, {"typ", "JWT"}}) {
  const std::string input = signing_input(header, claims);
  return input + "." + auth::base64url_encode(hs256(secret, input));
}

inline std::string mint_with(EVP_PKEY* key, const nlohmann::json& claims, nlohmann::json header) {
  const std::string input = signing_input(header, claims);
  return input + "." + auth::base64url_encode(sign_with(key, input));
}

}  // namespace queen::test
