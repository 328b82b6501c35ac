#pragma once
// Verifies a compact JWS bearer token (docs/auth.md): the header's `alg`
// against JWT_ALGORITHM, the signature with OpenSSL (HMAC-SHA256, RSA PKCS#1
// v1.5 SHA-256, Ed25519), then exp/nbf with the clock skew, iss and aud, and
// reads the role, sub and tenant claims. Every refusal is a message fit for a
// 401 body: it never quotes the token or the key. Thread-safe, no I/O.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "auth/keys.h"
#include "auth/principal.h"
#include "config/config.h"
#include "tenant/tenant.h"

namespace queen::config {
struct JwtConfig;
}

namespace queen::auth {

// A longer Authorization value is refused before any parsing.
inline constexpr std::size_t kMaxTokenBytes = 8192;
// Nesting of the decoded header and claims.
inline constexpr int kMaxClaimsDepth = 16;
// The tenant claim: 1..64 characters of [A-Za-z0-9._-].
inline constexpr std::size_t kMaxTenantChars = 64;

enum class AlgorithmMode { HS256, RS256, EdDSA, Auto };

// Parses a JWT_ALGORITHM value; nullopt when it is none of the four.
std::optional<AlgorithmMode> parse_algorithm_mode(std::string_view text);

// Which keys the verifier may use. The secret is only ever an HMAC key and a
// public key only ever an RSA/Ed25519 key, so one can never stand in for the other.
struct VerifierKeys {
  std::string hmac_secret;              // JWT_SECRET ("" = none)
  std::optional<PublicKey> public_key;  // JWT_PUBLIC_KEY
  const KeyLookup* jwks = nullptr;      // JWT_JWKS_URL (not owned)
};

// The claims and role names default to the configuration's (config::JwtConfig); rules_from copies a
// configuration in.
struct VerifierRules {
  AlgorithmMode mode = AlgorithmMode::HS256;
  std::string issuer;    // "" = not checked
  std::string audience;  // "" = not checked
  int clock_skew_s = config::Config::defaults().jwt.clock_skew_s;
  std::string roles_claim = config::Config::defaults().jwt.roles_claim;
  std::string roles_array_claim = config::Config::defaults().jwt.roles_array_claim;
  std::string role_admin = config::Config::defaults().jwt.role_admin;
  std::string role_read_write = config::Config::defaults().jwt.role_read_write;
  std::string role_read_only = config::Config::defaults().jwt.role_read_only;
  std::string tenant_claim = config::Config::defaults().jwt.tenant_claim;
};
VerifierRules rules_from(const config::JwtConfig& config);  // throws KeyError on an unknown algorithm

struct VerifiedToken {
  std::optional<AccessLevel> level;    // nullopt: no recognised role (no access to any protected route)
  std::optional<std::string> subject;  // `sub`
  Tenant tenant;                       // the default tenant when the claim is absent
  std::optional<double> expires_at_s;  // `exp`, for a cache of verified tokens
};

struct Verification {
  std::optional<VerifiedToken> token;  // set when the token is valid
  std::string error;                   // why not, for the 401 body
};

class JwtVerifier {
 public:
  JwtVerifier(VerifierKeys keys, VerifierRules rules);
  ~JwtVerifier();
  JwtVerifier(const JwtVerifier&) = delete;
  JwtVerifier& operator=(const JwtVerifier&) = delete;

  // `now_s`: seconds since the Unix epoch.
  Verification verify(std::string_view token, std::int64_t now_s) const;
  int clock_skew_s() const;

  // The level the role claims grant: the highest recognised role.
  std::optional<AccessLevel> level_of(const nlohmann::json& claims) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// 1..64 characters of [A-Za-z0-9._-].
bool is_valid_tenant(std::string_view tenant);

}  // namespace queen::auth
