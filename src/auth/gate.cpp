#include "auth/gate.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "auth/jwks_source.h"
#include "auth/jwt_verifier.h"
#include "auth/token_cache.h"
#include "config/config.h"

namespace queen::auth {
namespace {

// Below this an HS256 secret is guessable offline from one token (RFC 7518 §3.2: a key of at least the hash size).
constexpr std::size_t kMinHmacSecretBytes = 32;

// "Bearer", any case, alone or followed by blanks.
bool starts_with_bearer(std::string_view value) {
  constexpr std::string_view kScheme = "bearer";
  if (value.size() < kScheme.size()) return false;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = value[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c) != kScheme[i]) return false;
  }
  return value.size() == kScheme.size() || value[kScheme.size()] == ' ' || value[kScheme.size()] == '\t';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

VerifierKeys load_keys(const config::JwtConfig& config, AlgorithmMode mode, const KeyLookup* jwks) {
  VerifierKeys keys;
  if (mode == AlgorithmMode::HS256 || mode == AlgorithmMode::Auto) keys.hmac_secret = config.secret;
  if (mode != AlgorithmMode::HS256 && !config.public_key_pem.empty()) {
    keys.public_key = load_pem_public_key(config.public_key_pem);
    const KeyType wanted = mode == AlgorithmMode::RS256 ? KeyType::Rsa : KeyType::Ed25519;
    if (mode != AlgorithmMode::Auto && keys.public_key->type() != wanted) {
      throw KeyError("JWT_PUBLIC_KEY is " + std::string(keys.public_key->type() == KeyType::Rsa ? "an RSA" : "an Ed25519") +
                     " key, which cannot verify JWT_ALGORITHM=" + config.algorithm + " tokens");
    }
  }
  if (mode != AlgorithmMode::HS256) keys.jwks = jwks;
  if (keys.hmac_secret.empty() && !keys.public_key && !keys.jwks) {
    throw KeyError("JWT_ENABLED=true but no key for JWT_ALGORITHM=" + config.algorithm +
                   ": set JWT_SECRET (HS256), JWT_PUBLIC_KEY or JWT_JWKS_URL");
  }
  if (mode == AlgorithmMode::HS256 && (!config.public_key_pem.empty() || !config.jwks_url.empty())) {
    spdlog::warn("auth: JWT_ALGORITHM=HS256: JWT_PUBLIC_KEY and JWT_JWKS_URL are ignored");
  }
  if ((mode == AlgorithmMode::RS256 || mode == AlgorithmMode::EdDSA) && !config.secret.empty()) {
    spdlog::warn("auth: JWT_ALGORITHM={}: JWT_SECRET is ignored", config.algorithm);
  }
  if (!keys.hmac_secret.empty() && keys.hmac_secret.size() < kMinHmacSecretBytes) {
    spdlog::warn("auth: JWT_SECRET is shorter than {} bytes; a short HS256 secret can be guessed from a token",
                 kMinHmacSecretBytes);
  }
  return keys;
}

std::int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A refusal names no one: its principal is the anonymous one, never read.
AccessDecision refuse(int status, std::string error) {
  return AccessDecision{false, Principal::anonymous(), status, std::move(error)};
}

}  // namespace

std::string_view bearer_token(std::string_view authorization) {
  const std::string_view value = trim(authorization);
  if (starts_with_bearer(value)) return trim(value.substr(6));
  if (value.find(' ') != std::string_view::npos) return {};  // another scheme (Basic ...)
  return value;
}

Gate::Gate(const config::JwtConfig& config, JwksFetch fetch, Now now)
    : skip_paths_(config.skip_paths),
      now_(now ? std::move(now) : Now(system_now)),
      verified_(std::make_unique<TokenCache>()) {
  const VerifierRules rules = rules_from(config);
  if (!config.jwks_url.empty() && rules.mode != AlgorithmMode::HS256) {
    jwks_ = std::make_unique<JwksSource>(config.jwks_url, std::chrono::seconds(config.jwks_refresh_interval_s),
                                         config.jwks_timeout_ms, std::move(fetch));
  }
  verifier_ = std::make_unique<JwtVerifier>(load_keys(config, rules.mode, jwks_.get()), rules);
}

Gate::~Gate() { stop(); }

void Gate::start() {
  if (jwks_) jwks_->start();
}

void Gate::stop() {
  if (jwks_) jwks_->stop();
}

AccessDecision Gate::authorize(std::string_view authorization, std::string_view path,
                               const RouteAccess* route) const {
  if ((route && route->is_public()) || skip_paths_.matches(path)) {
    return AccessDecision{true, Principal::anonymous(), 0, {}};
  }
  const std::string_view token = bearer_token(authorization);
  if (token.empty()) return refuse(401, "Authentication required");
  const std::int64_t now_s = now_();
  const std::uint64_t generation = jwks_ ? jwks_->generation() : 0;
  std::optional<VerifiedToken> cached = verified_->find(token, generation, now_s, verifier_->clock_skew_s());
  if (!cached) {
    Verification verification = verifier_->verify(token, now_s);
    if (!verification.token) return refuse(401, std::move(verification.error));
    verified_->put(token, generation, *verification.token);
    cached = std::move(verification.token);
  }
  VerifiedToken& verified = *cached;
  const AccessLevel held = verified.level ? held_level(*verified.level, verified.tenant) : AccessLevel::ReadOnly;
  if (route && !verified.level) return refuse(403, "Insufficient permissions");
  if (route) {
    if (std::optional<std::string> refusal = access_refusal(held, route->level())) {
      return refuse(403, std::move(*refusal));
    }
  }
  return AccessDecision{true, Principal{std::move(verified.tenant), std::move(verified.subject), held}, 0, {}};
}

}  // namespace queen::auth
