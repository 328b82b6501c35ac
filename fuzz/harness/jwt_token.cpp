// Fuzzes the bearer-token verifier and the JWKS parser (src/auth/jwt_verifier.*, keys.*, base64url.*,
// bounded_json.*, access.*). A token from a client and a JWKS document from the network are outside bytes: no
// input may crash, hang or be accepted without a valid signature.
//
// Input: one control byte, then the data. Control % 4 chooses:
//   0  the data is a token, verified with an HS256 secret (and checked against the skip-path matcher as a path)
//   1  the data is "header JSON\nclaims JSON": the harness encodes and signs them with the secret, so the claim
//      checks (exp, nbf, iss, aud, roles, sub, tenant) are reached; a token it accepts must satisfy them
//   2  the data is a JWKS document
//   3  the data is base64url text: decoding must be canonical (encode(decode(x)) == x)
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <nlohmann/json.hpp>

#include "auth/access.h"
#include "auth/base64url.h"
#include "auth/jwt_verifier.h"
#include "auth/keys.h"
#include "fuzz_support.h"

using namespace queen;
using namespace queen::auth;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
const std::string kSecret = "fuzz-jwt-secret-0123456789abcdef0123";

const JwtVerifier& verifier() {
  static const JwtVerifier instance = [] {
    VerifierKeys keys;
    keys.hmac_secret = kSecret;
    VerifierRules rules;
    rules.mode = AlgorithmMode::Auto;
    rules.issuer = "iss";
    rules.audience = "aud";
    return JwtVerifier(keys, rules);
  }();
  return instance;
}

std::string sign(std::string_view header, std::string_view claims) {
  const std::string input = base64url_encode(header) + "." + base64url_encode(claims);
  unsigned char mac[32];
  unsigned int size = 0;
  HMAC(EVP_sha256(), kSecret.data(), static_cast<int>(kSecret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &size);
  return input + "." + base64url_encode(std::string(reinterpret_cast<char*>(mac), size));
}

void check_outcome(const Verification& v) {
  FUZZ_CHECK(v.token.has_value() != !v.error.empty(), "a verification is either a token or an error");
  if (v.token) FUZZ_CHECK(v.token->tenant.is_default() || is_valid_tenant(v.token->tenant.name()), "an invalid tenant passed");
}

// Mode 1: what the verifier accepted must hold what the rules demand.
void check_signed(std::string_view data) {
  const std::size_t newline = data.find('\n');
  if (newline == std::string_view::npos) return;
  const std::string token = sign(data.substr(0, newline), data.substr(newline + 1));
  const Verification v = verifier().verify(token, kNow);
  check_outcome(v);
  if (!v.token) return;
  FUZZ_CHECK(token.size() <= kMaxTokenBytes, "an oversized token was accepted");
  const nlohmann::json claims = nlohmann::json::parse(data.substr(newline + 1));
  FUZZ_CHECK(claims.is_object() && claims.value("iss", nlohmann::json()) == "iss", "a wrong issuer was accepted");
  if (claims.contains("exp")) FUZZ_CHECK(claims["exp"].get<double>() + 30 > kNow, "an expired token was accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::quiet_logs();
  fuzz::Cursor cursor(data, size);
  const std::uint8_t control = cursor.byte();
  const std::string_view rest = cursor.rest();
  switch (control % 4) {
    case 0: {
      const Verification v = verifier().verify(rest, kNow);
      check_outcome(v);
      FUZZ_CHECK(!v.token, "an unsigned input was accepted as a token");
      static const SkipPaths skip({"/health", "/metrics", "/", "/docs/"});
      (void)skip.matches(rest);
      break;
    }
    case 1: check_signed(rest); break;
    case 2:
      try {
        (void)parse_jwks(rest);
      } catch (const KeyError&) {
      }
      break;
    default: {
      const std::optional<std::string> decoded = base64url_decode(rest);
      if (decoded) FUZZ_CHECK(base64url_encode(*decoded) == rest, "base64url decoding is not canonical");
      break;
    }
  }
  return 0;
}
