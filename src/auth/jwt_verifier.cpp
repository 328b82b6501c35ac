#include "auth/jwt_verifier.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <nlohmann/json.hpp>

#include "auth/base64url.h"
#include "auth/bounded_json.h"
#include "config/config.h"

namespace queen::auth {
namespace {

constexpr std::size_t kHs256Bytes = 32;

enum class TokenAlg { HS256, RS256, EdDSA };

// A refusal on the way through verify(); its text is the 401 message.
struct Refused {
  std::string message;
};

const char* name_of(TokenAlg alg) {
  switch (alg) {
    case TokenAlg::HS256: return "HS256";
    case TokenAlg::RS256: return "RS256";
    case TokenAlg::EdDSA: return "EdDSA";
  }
  return "";
}

struct Segments {
  std::string_view header;
  std::string_view payload;
  std::string_view signature;
  std::string_view signing_input;  // header.payload
};

Segments split_token(std::string_view token) {
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    throw Refused{"Invalid token: malformed (expected header.payload.signature)"};
  }
  return {token.substr(0, first), token.substr(first + 1, second - first - 1), token.substr(second + 1),
          token.substr(0, second)};
}

nlohmann::json decode_object(std::string_view segment, const char* what) {
  const std::optional<std::string> text = base64url_decode(segment);
  if (!text) throw Refused{std::string("Invalid token: malformed (") + what + " is not base64url)"};
  BoundedJson parsed = parse_bounded_json(*text, kMaxClaimsDepth);
  if (parsed.refusal == JsonRefusal::DuplicateKey) {
    // Which of two "role" claims counts must never depend on the parser.
    throw Refused{std::string("Invalid token: the ") + what + " repeats the member \"" + parsed.duplicate_key + "\""};
  }
  if (!parsed.value || !parsed.value->is_object()) {
    throw Refused{std::string("Invalid token: malformed (") + what + " is not a JSON object)"};
  }
  return std::move(*parsed.value);
}

std::optional<std::string> string_member(const nlohmann::json& object, const std::string& name, const char* what) {
  const auto it = object.find(name);
  if (it == object.end()) return std::nullopt;
  if (!it->is_string()) throw Refused{std::string("Invalid token: ") + what + " is not a string"};
  return it->get<std::string>();
}

std::optional<double> time_claim(const nlohmann::json& claims, const char* name) {
  const auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  if (!it->is_number()) throw Refused{std::string("Invalid token: '") + name + "' is not a number"};
  return it->get<double>();
}

bool audience_matches(const nlohmann::json& aud, const std::string& expected) {
  if (aud.is_string()) return aud.get<std::string>() == expected;
  if (!aud.is_array()) return false;
  for (const nlohmann::json& entry : aud) {
    if (entry.is_string() && entry.get<std::string>() == expected) return true;
  }
  return false;
}

bool verify_with_public_key(const PublicKey& key, TokenAlg alg, std::string_view input, const std::string& sig) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const EVP_MD* digest = alg == TokenAlg::RS256 ? EVP_sha256() : nullptr;  // Ed25519 hashes internally
  const bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key.get()) == 1 &&
                  EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                                   reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  if (!ok) ERR_clear_error();  // a refused signature leaves entries in this thread's error queue
  return ok;
}

}  // namespace

std::optional<AlgorithmMode> parse_algorithm_mode(std::string_view text) {
  if (text == "HS256") return AlgorithmMode::HS256;
  if (text == "RS256") return AlgorithmMode::RS256;
  if (text == "EdDSA") return AlgorithmMode::EdDSA;
  if (text == "auto") return AlgorithmMode::Auto;
  return std::nullopt;
}

VerifierRules rules_from(const config::JwtConfig& c) {
  const std::optional<AlgorithmMode> mode = parse_algorithm_mode(c.algorithm);
  if (!mode) throw KeyError("JWT_ALGORITHM='" + c.algorithm + "' is not one of HS256, RS256, EdDSA, auto");
  return VerifierRules{*mode,           c.issuer,          c.audience,        c.clock_skew_s,
                       c.roles_claim,   c.roles_array_claim, c.role_admin,    c.role_read_write,
                       c.role_read_only, c.tenant_claim};
}

bool is_valid_tenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > kMaxTenantChars) return false;
  for (const char c : tenant) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

struct JwtVerifier::Impl {
  VerifierKeys keys;
  VerifierRules rules;
  std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> hmac{EVP_MAC_fetch(nullptr, "HMAC", nullptr), EVP_MAC_free};

  TokenAlg allowed_alg(const nlohmann::json& header) const;
  std::optional<PublicKey> key_for(TokenAlg alg, const std::optional<std::string>& kid) const;
  void check_signature(TokenAlg alg, const std::optional<std::string>& kid, const Segments& segments) const;
  bool hmac_matches(std::string_view input, const std::string& sig) const;
  void check_claims(const nlohmann::json& claims, std::int64_t now_s) const;
  Tenant tenant_of(const nlohmann::json& claims) const;
};

JwtVerifier::JwtVerifier(VerifierKeys keys, VerifierRules rules)
    : impl_(std::make_unique<Impl>(Impl{std::move(keys), std::move(rules)})) {
  if (!impl_->hmac) throw KeyError("OpenSSL has no HMAC implementation");
}

JwtVerifier::~JwtVerifier() = default;

int JwtVerifier::clock_skew_s() const { return impl_->rules.clock_skew_s; }

// The header's alg, if JWT_ALGORITHM and the configured keys allow it.
TokenAlg JwtVerifier::Impl::allowed_alg(const nlohmann::json& header) const {
  if (header.contains("crit")) throw Refused{"Invalid token: unsupported critical header parameters"};
  const std::optional<std::string> alg = string_member(header, "alg", "alg");
  if (!alg) throw Refused{"Invalid token: malformed (no alg in the header)"};
  if (*alg == "none") throw Refused{"Invalid token: algorithm 'none' is not allowed"};
  TokenAlg token_alg;
  if (*alg == "HS256") {
    token_alg = TokenAlg::HS256;
  } else if (*alg == "RS256") {
    token_alg = TokenAlg::RS256;
  } else if (*alg == "EdDSA") {
    token_alg = TokenAlg::EdDSA;
  } else {
    throw Refused{"Invalid token: algorithm not allowed"};
  }
  bool allowed = false;
  switch (rules.mode) {
    case AlgorithmMode::HS256: allowed = token_alg == TokenAlg::HS256; break;
    case AlgorithmMode::RS256: allowed = token_alg == TokenAlg::RS256; break;
    case AlgorithmMode::EdDSA: allowed = token_alg == TokenAlg::EdDSA; break;
    case AlgorithmMode::Auto:
      allowed = token_alg == TokenAlg::HS256 ? !keys.hmac_secret.empty()
                                             : (keys.public_key.has_value() || keys.jwks != nullptr);
      break;
  }
  if (!allowed) throw Refused{"Invalid token: algorithm not allowed"};
  return token_alg;
}

std::optional<PublicKey> JwtVerifier::Impl::key_for(TokenAlg alg, const std::optional<std::string>& kid) const {
  const KeyType type = alg == TokenAlg::RS256 ? KeyType::Rsa : KeyType::Ed25519;
  if (kid && keys.jwks) {
    if (std::optional<PublicKey> key = keys.jwks->find(*kid)) return key;
  }
  if (keys.public_key && keys.public_key->type() == type) return keys.public_key;
  if (!kid && keys.jwks) return keys.jwks->only_key_of(type);
  return std::nullopt;
}

bool JwtVerifier::Impl::hmac_matches(std::string_view input, const std::string& sig) const {
  if (sig.size() != kHs256Bytes) return false;
  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(hmac.get()), EVP_MAC_CTX_free);
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
                               OSSL_PARAM_construct_end()};
  unsigned char mac[EVP_MAX_MD_SIZE];
  std::size_t mac_size = 0;
  const bool computed =
      ctx &&
      EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(keys.hmac_secret.data()),
                   keys.hmac_secret.size(), params) == 1 &&
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1 &&
      EVP_MAC_final(ctx.get(), mac, &mac_size, sizeof mac) == 1;
  if (!computed) {
    ERR_clear_error();
    return false;
  }
  return mac_size == kHs256Bytes && CRYPTO_memcmp(mac, sig.data(), kHs256Bytes) == 0;
}

void JwtVerifier::Impl::check_signature(TokenAlg alg, const std::optional<std::string>& kid,
                                        const Segments& segments) const {
  const std::optional<std::string> sig = base64url_decode(segments.signature);
  if (!sig || sig->empty()) throw Refused{"Invalid token: malformed (signature is not base64url)"};
  if (alg == TokenAlg::HS256) {
    if (!hmac_matches(segments.signing_input, *sig)) throw Refused{"Invalid token: signature verification failed"};
    return;
  }
  const std::optional<PublicKey> key = key_for(alg, kid);
  if (!key) throw Refused{"Invalid token: unknown signing key"};
  const KeyType wanted = alg == TokenAlg::RS256 ? KeyType::Rsa : KeyType::Ed25519;
  if (key->type() != wanted || (!key->alg().empty() && key->alg() != name_of(alg))) {
    throw Refused{"Invalid token: the signing key does not match the algorithm"};
  }
  if (!verify_with_public_key(*key, alg, segments.signing_input, *sig)) {
    throw Refused{"Invalid token: signature verification failed"};
  }
}

void JwtVerifier::Impl::check_claims(const nlohmann::json& claims, std::int64_t now_s) const {
  const double now = static_cast<double>(now_s);
  const double skew = rules.clock_skew_s;
  if (const std::optional<double> exp = time_claim(claims, "exp"); exp && now >= *exp + skew) {
    throw Refused{"Token has expired"};
  }
  if (const std::optional<double> nbf = time_claim(claims, "nbf"); nbf && now + skew < *nbf) {
    throw Refused{"Token is not yet valid"};
  }
  if (!rules.issuer.empty() && string_member(claims, "iss", "iss").value_or("") != rules.issuer) {
    throw Refused{"Invalid token: wrong issuer"};
  }
  if (!rules.audience.empty()) {
    const auto aud = claims.find("aud");
    if (aud == claims.end() || !audience_matches(*aud, rules.audience)) throw Refused{"Invalid token: wrong audience"};
  }
}

Tenant JwtVerifier::Impl::tenant_of(const nlohmann::json& claims) const {
  const auto it = claims.find(rules.tenant_claim);
  if (it == claims.end()) return Tenant::default_tenant();
  if (!it->is_string() || !is_valid_tenant(it->get_ref<const std::string&>())) {
    throw Refused{"Invalid token: the tenant claim must be 1 to 64 characters of A-Z a-z 0-9 . _ -"};
  }
  return Tenant(it->get<std::string>());
}

std::optional<AccessLevel> JwtVerifier::level_of(const nlohmann::json& claims) const {
  const VerifierRules& rules = impl_->rules;
  std::optional<AccessLevel> best;
  const auto consider = [&](const nlohmann::json& role) {
    if (!role.is_string()) return;
    const auto& name = role.get_ref<const std::string&>();
    std::optional<AccessLevel> level;
    if (name == rules.role_admin) level = AccessLevel::Admin;
    else if (name == rules.role_read_write) level = AccessLevel::ReadWrite;
    else if (name == rules.role_read_only) level = AccessLevel::ReadOnly;
    if (level && (!best || *level > *best)) best = level;
  };
  // Either claim may hold a string or an array of strings.
  for (const std::string* claim : {&rules.roles_claim, &rules.roles_array_claim}) {
    const auto it = claims.find(*claim);
    if (it == claims.end()) continue;
    if (it->is_array()) {
      for (const nlohmann::json& role : *it) consider(role);
    } else {
      consider(*it);
    }
  }
  return best;
}

Verification JwtVerifier::verify(std::string_view token, std::int64_t now_s) const {
  Verification out;
  try {
    if (token.size() > kMaxTokenBytes) throw Refused{"Invalid token: longer than 8192 bytes"};
    const Segments segments = split_token(token);
    const nlohmann::json header = decode_object(segments.header, "header");
    const TokenAlg alg = impl_->allowed_alg(header);
    impl_->check_signature(alg, string_member(header, "kid", "kid"), segments);
    const nlohmann::json claims = decode_object(segments.payload, "payload");
    impl_->check_claims(claims, now_s);
    std::optional<std::string> subject = string_member(claims, "sub", "sub");
    Tenant tenant = impl_->tenant_of(claims);
    out.token = VerifiedToken{level_of(claims), std::move(subject), std::move(tenant), time_claim(claims, "exp")};
  } catch (const Refused& refused) {
    out.error = refused.message;
  }
  return out;
}

}  // namespace queen::auth
