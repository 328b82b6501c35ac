#include "auth/jwt_verifier.h"

#include <gtest/gtest.h>

#include "token_support.h"
#include "../support/table_default.h"

using namespace queen;
using namespace queen::auth;
using queen::test::mint_hs256;
using queen::test::mint_with;
using nlohmann::json;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
const std::string kSecret = "0123456789abcdef0123456789abcdef-test-secret";

json claims(json extra = json::object()) {
  json c = {{"sub", "svc-orders"}, {"role", "read-write"}, {"exp", kNow + 600}, {"iat", kNow}};
  for (auto& [k, v] : extra.items()) c[k] = v;
  return c;
}

VerifierRules rules(AlgorithmMode mode) {
  VerifierRules r;
  r.mode = mode;
  return r;
}

JwtVerifier hs_verifier(VerifierRules r = rules(AlgorithmMode::HS256)) {
  VerifierKeys keys;
  keys.hmac_secret = kSecret;
  return JwtVerifier(keys, std::move(r));
}

std::string refusal(const JwtVerifier& v, const std::string& token, std::int64_t now = kNow) {
  const Verification result = v.verify(token, now);
  EXPECT_FALSE(result.token.has_value()) << "accepted: " << token;
  return result.error;
}

class FixedKeys : public KeyLookup {
 public:
  std::map<std::string, PublicKey> keys;
  std::optional<PublicKey> find(const std::string& kid) const override {
    const auto it = keys.find(kid);
    if (it == keys.end()) return std::nullopt;
    return it->second;
  }
  std::optional<PublicKey> only_key_of(KeyType type) const override {
    std::optional<PublicKey> only;
    for (const auto& [kid, key] : keys) {
      if (key.type() != type) continue;
      if (only) return std::nullopt;
      only = key;
    }
    return only;
  }
};

}  // namespace

TEST(JwtVerifier, Hs256TokenGivesSubjectLevelAndDefaultTenant) {
  const JwtVerifier v = hs_verifier();
  const Verification result = v.verify(mint_hs256(kSecret, claims()), kNow);
  ASSERT_TRUE(result.token) << result.error;
  EXPECT_EQ(result.token->subject, "svc-orders");
  EXPECT_EQ(result.token->level, AccessLevel::ReadWrite);
  EXPECT_EQ(result.token->tenant.name(), "");
}

TEST(JwtVerifier, Rs256AndEd25519WithAPemKey) {
  for (const char* type : {"RSA", "ED25519"}) {
    const auto key = test::generate_key(type);
    const bool rsa = std::string(type) == "RSA";
    VerifierKeys keys;
    keys.public_key = load_pem_public_key(test::public_pem(key.get()));
    const JwtVerifier v(keys, rules(rsa ? AlgorithmMode::RS256 : AlgorithmMode::EdDSA));
    const std::string alg = rsa ? "RS256" : "EdDSA";
    const Verification result = v.verify(mint_with(key.get(), claims(), {{"alg", alg}}), kNow);
    ASSERT_TRUE(result.token) << type << ": " << result.error;
    EXPECT_EQ(result.token->subject, "svc-orders");
    // Another key of the same type: the signature does not verify.
    const auto other = test::generate_key(type);
    EXPECT_EQ(refusal(v, mint_with(other.get(), claims(), {{"alg", alg}})),
              "Invalid token: signature verification failed");
  }
}

TEST(JwtVerifier, JwksKeysAreChosenByKid) {
  const auto rsa = test::generate_key("RSA");
  const auto ed = test::generate_key("ED25519");
  const Jwks jwks = parse_jwks(json{{"keys", {test::jwk_of(rsa.get(), "r1"), test::jwk_of(ed.get(), "e1")}}}.dump());
  ASSERT_EQ(jwks.by_kid.size(), 2u);
  FixedKeys lookup;
  lookup.keys = jwks.by_kid;
  VerifierKeys keys;
  keys.jwks = &lookup;
  const JwtVerifier v(keys, rules(AlgorithmMode::Auto));
  EXPECT_TRUE(v.verify(mint_with(rsa.get(), claims(), {{"alg", "RS256"}, {"kid", "r1"}}), kNow).token);
  EXPECT_TRUE(v.verify(mint_with(ed.get(), claims(), {{"alg", "EdDSA"}, {"kid", "e1"}}), kNow).token);
  // Without a kid the only key of the algorithm's type is used.
  EXPECT_TRUE(v.verify(mint_with(ed.get(), claims(), {{"alg", "EdDSA"}}), kNow).token);
  EXPECT_EQ(refusal(v, mint_with(rsa.get(), claims(), {{"alg", "RS256"}, {"kid", "nope"}})),
            "Invalid token: unknown signing key");
  // A kid naming a key of another type (an Ed25519 key for an RS256 token).
  EXPECT_EQ(refusal(v, mint_with(rsa.get(), claims(), {{"alg", "RS256"}, {"kid", "e1"}})),
            "Invalid token: the signing key does not match the algorithm");
  // HS256 is not allowed in auto mode without JWT_SECRET.
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims())), "Invalid token: algorithm not allowed");
}

TEST(JwtVerifier, AlgNoneAndOtherAlgorithmsAreRefused) {
  const JwtVerifier v = hs_verifier();
  const std::string unsigned_token =
      test::signing_input({{"alg", "none"}, {"typ", "JWT"}}, claims()) + ".";
  EXPECT_EQ(refusal(v, unsigned_token), "Invalid token: algorithm 'none' is not allowed");
  EXPECT_EQ(refusal(v, test::signing_input({{"alg", "none"}}, claims()) + ".c2ln"),
            "Invalid token: algorithm 'none' is not allowed");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims(), {{"alg", "HS512"}})), "Invalid token: algorithm not allowed");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims(), {{"alg", "hs256"}})), "Invalid token: algorithm not allowed");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims(), {{"typ", "JWT"}})),
            "Invalid token: malformed (no alg in the header)");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims(), {{"alg", 256}})), "Invalid token: alg is not a string");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims(), {{"alg", "HS256"}, {"crit", {"exp"}}})),
            "Invalid token: unsupported critical header parameters");
}

TEST(JwtVerifier, WrongAlgorithmForTheConfiguredMode) {
  const auto rsa = test::generate_key("RSA");
  VerifierKeys keys;
  keys.hmac_secret = kSecret;
  keys.public_key = load_pem_public_key(test::public_pem(rsa.get()));
  const JwtVerifier rs_only(keys, rules(AlgorithmMode::RS256));
  EXPECT_EQ(refusal(rs_only, mint_hs256(kSecret, claims())), "Invalid token: algorithm not allowed");
  const JwtVerifier hs_only(keys, rules(AlgorithmMode::HS256));
  EXPECT_EQ(refusal(hs_only, mint_with(rsa.get(), claims(), {{"alg", "RS256"}})), "Invalid token: algorithm not allowed");
  const JwtVerifier ed_only(keys, rules(AlgorithmMode::EdDSA));
  EXPECT_EQ(refusal(ed_only, mint_with(rsa.get(), claims(), {{"alg", "RS256"}})), "Invalid token: algorithm not allowed");
}

// The classic confusion: an HS256 token whose HMAC key is the RSA public key's PEM text.
TEST(JwtVerifier, PublicKeyPemUsedAsAnHmacSecretIsRefused) {
  const auto rsa = test::generate_key("RSA");
  const std::string pem = test::public_pem(rsa.get());
  VerifierKeys keys;
  keys.public_key = load_pem_public_key(pem);
  for (AlgorithmMode mode : {AlgorithmMode::RS256, AlgorithmMode::Auto}) {
    const JwtVerifier v(keys, rules(mode));
    EXPECT_EQ(refusal(v, mint_hs256(pem, claims())), "Invalid token: algorithm not allowed");
  }
  // Even with a secret configured (auto), the PEM is never the HMAC key.
  keys.hmac_secret = kSecret;
  const JwtVerifier with_secret(keys, rules(AlgorithmMode::Auto));
  EXPECT_EQ(refusal(with_secret, mint_hs256(pem, claims())), "Invalid token: signature verification failed");
}

TEST(JwtVerifier, BadSignatures) {
  const JwtVerifier v = hs_verifier();
  const std::string token = mint_hs256(kSecret, claims());
  EXPECT_EQ(refusal(v, mint_hs256("another-secret-of-enough-length-000000", claims())),
            "Invalid token: signature verification failed");
  std::string flipped = token;
  flipped[flipped.size() - 2] = flipped[flipped.size() - 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(refusal(v, flipped), "Invalid token: signature verification failed");
  // The claims changed after signing.
  const std::string forged = test::signing_input({{"alg", "HS256"}}, claims({{"role", "admin"}})) +
                             token.substr(token.rfind('.'));
  EXPECT_EQ(refusal(v, forged), "Invalid token: signature verification failed");
  EXPECT_EQ(refusal(v, token.substr(0, token.rfind('.') + 1)), "Invalid token: malformed (signature is not base64url)");
  // A truncated signature.
  EXPECT_EQ(refusal(v, token.substr(0, token.size() - 3)), "Invalid token: signature verification failed");
}

TEST(JwtVerifier, ExpiryAndNotBeforeHonourTheSkew) {
  const JwtVerifier v = hs_verifier();  // skew 30 s
  const std::string expired = mint_hs256(kSecret, claims({{"exp", kNow - 31}}));
  EXPECT_EQ(refusal(v, expired), "Token has expired");
  EXPECT_TRUE(v.verify(mint_hs256(kSecret, claims({{"exp", kNow - 29}})), kNow).token);
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"nbf", kNow + 31}}))), "Token is not yet valid");
  EXPECT_TRUE(v.verify(mint_hs256(kSecret, claims({{"nbf", kNow + 29}})), kNow).token);
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"exp", "tomorrow"}}))), "Invalid token: 'exp' is not a number");
  // No skew at all.
  VerifierRules strict = rules(AlgorithmMode::HS256);
  strict.clock_skew_s = 0;
  const JwtVerifier s = hs_verifier(strict);
  EXPECT_EQ(refusal(s, mint_hs256(kSecret, claims({{"exp", kNow}}))), "Token has expired");
  EXPECT_TRUE(s.verify(mint_hs256(kSecret, claims({{"exp", kNow + 1}, {"nbf", kNow}})), kNow).token);
}

TEST(JwtVerifier, IssuerAndAudienceWhenConfigured) {
  VerifierRules r = rules(AlgorithmMode::HS256);
  r.issuer = "https://issuer.example";
  r.audience = "queen";
  const JwtVerifier v = hs_verifier(r);
  const json good = {{"iss", "https://issuer.example"}, {"aud", "queen"}};
  EXPECT_TRUE(v.verify(mint_hs256(kSecret, claims(good)), kNow).token);
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"iss", "https://evil.example"}, {"aud", "queen"}}))),
            "Invalid token: wrong issuer");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"aud", "queen"}}))), "Invalid token: wrong issuer");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"iss", "https://issuer.example"}, {"aud", "other"}}))),
            "Invalid token: wrong audience");
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"iss", "https://issuer.example"}}))),
            "Invalid token: wrong audience");
  EXPECT_TRUE(v.verify(mint_hs256(kSecret, claims({{"iss", "https://issuer.example"}, {"aud", {"x", "queen"}}})), kNow)
                  .token);
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"iss", "https://issuer.example"}, {"aud", {"x", "y"}}}))),
            "Invalid token: wrong audience");
  // Not configured: not checked.
  EXPECT_TRUE(hs_verifier().verify(mint_hs256(kSecret, claims({{"iss", "anyone"}, {"aud", "anything"}})), kNow).token);
}

TEST(JwtVerifier, GarbageIsRefusedAsMalformed) {
  const JwtVerifier v = hs_verifier();
  const std::string token = mint_hs256(kSecret, claims());
  for (const std::string& bad : {std::string("garbage"), std::string("a.b"), std::string("a.b.c.d"), std::string(".."),
                                 std::string("...."), token.substr(0, token.find('.') + 5), std::string("\xff\xfe.x.y")}) {
    const std::string error = refusal(v, bad);
    EXPECT_EQ(error.rfind("Invalid token: malformed", 0), 0u) << bad << " -> " << error;
  }
  EXPECT_EQ(refusal(v, std::string(kMaxTokenBytes + 1, 'a')), "Invalid token: longer than 8192 bytes");
  // Bad base64 (standard alphabet, padding) in the header.
  EXPECT_EQ(refusal(v, "eyJhbGciOiJIUzI1NiJ9=." + token.substr(token.find('.') + 1)),
            "Invalid token: malformed (header is not base64url)");
  EXPECT_EQ(refusal(v, "ab+/." + token.substr(token.find('.') + 1)), "Invalid token: malformed (header is not base64url)");
  // Header or claims that are JSON but not an object.
  EXPECT_EQ(refusal(v, base64url_encode("[1,2]") + "." + token.substr(token.find('.') + 1)),
            "Invalid token: malformed (header is not a JSON object)");
  const std::string input = base64url_encode(R"({"alg":"HS256"})") + "." + base64url_encode("\"just a string\"");
  EXPECT_EQ(refusal(v, input + "." + base64url_encode(test::hs256(kSecret, input))),
            "Invalid token: malformed (payload is not a JSON object)");
  // Deep nesting stops at the depth bound.
  const std::string deep = "{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}";
  const std::string deep_input = base64url_encode(R"({"alg":"HS256"})") + "." + base64url_encode(deep);
  EXPECT_EQ(refusal(v, deep_input + "." + base64url_encode(test::hs256(kSecret, deep_input))),
            "Invalid token: malformed (payload is not a JSON object)");
}

TEST(JwtVerifier, RolesTheHighestRecognisedWins) {
  const JwtVerifier v = hs_verifier();
  auto level = [&](json extra) {
    json c = {{"exp", kNow + 60}};
    for (auto& [k, val] : extra.items()) c[k] = val;
    return v.verify(mint_hs256(kSecret, c), kNow).token->level;
  };
  EXPECT_EQ(level({{"role", "admin"}}), AccessLevel::Admin);
  EXPECT_EQ(level({{"role", "read-only"}}), AccessLevel::ReadOnly);
  EXPECT_EQ(level({{"roles", {"read-only", "read-write"}}}), AccessLevel::ReadWrite);
  EXPECT_EQ(level({{"role", "read-only"}, {"roles", {"admin"}}}), AccessLevel::Admin);
  EXPECT_EQ(level({{"roles", {"viewer", 7, "admin"}}}), AccessLevel::Admin);
  EXPECT_EQ(level({{"role", "superuser"}}), std::nullopt);
  EXPECT_EQ(level(json::object()), std::nullopt);

  VerifierRules renamed = rules(AlgorithmMode::HS256);
  renamed.roles_claim = "queen_role";
  renamed.roles_array_claim = "groups";
  renamed.role_admin = "ops";
  renamed.role_read_write = "app";
  renamed.role_read_only = "dash";
  const JwtVerifier r = hs_verifier(renamed);
  auto renamed_level = [&](json c) { return r.verify(mint_hs256(kSecret, c), kNow).token->level; };
  EXPECT_EQ(renamed_level({{"queen_role", "app"}}), AccessLevel::ReadWrite);
  EXPECT_EQ(renamed_level({{"groups", {"dash", "ops"}}}), AccessLevel::Admin);
  EXPECT_EQ(renamed_level({{"role", "admin"}}), std::nullopt);
}

TEST(JwtVerifier, TenantAndSubjectClaims) {
  const JwtVerifier v = hs_verifier();
  EXPECT_EQ(v.verify(mint_hs256(kSecret, claims({{"tenant", "acme.eu-1_x"}})), kNow).token->tenant.name(), "acme.eu-1_x");
  for (const json& bad : {json(""), json(std::string(65, 'a')), json("a b"), json("ünï"), json(7), json(nullptr)}) {
    EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"tenant", bad}}))),
              "Invalid token: the tenant claim must be 1 to 64 characters of A-Z a-z 0-9 . _ -")
        << bad.dump();
  }
  EXPECT_TRUE(v.verify(mint_hs256(kSecret, claims({{"tenant", std::string(64, 'a')}})), kNow).token);
  EXPECT_EQ(refusal(v, mint_hs256(kSecret, claims({{"sub", 42}}))), "Invalid token: sub is not a string");
  json no_sub = claims();
  no_sub.erase("sub");
  EXPECT_EQ(v.verify(mint_hs256(kSecret, no_sub), kNow).token->subject, std::nullopt);
  VerifierRules org = rules(AlgorithmMode::HS256);
  org.tenant_claim = "org";
  EXPECT_EQ(hs_verifier(org).verify(mint_hs256(kSecret, claims({{"org", "o1"}, {"tenant", "t"}})), kNow).token->tenant.name(),
            "o1");
}

TEST(Base64Url, RoundTripAndStrictness) {
  for (const std::string& s : {std::string(""), std::string("f"), std::string("fo"), std::string("foo"),
                               std::string("\xff\xfe\x00\x01", 4)}) {
    EXPECT_EQ(base64url_decode(base64url_encode(s)), s);
  }
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64url_decode("Zm9v="), std::nullopt);
  EXPECT_EQ(base64url_decode("Z"), std::nullopt);
  EXPECT_EQ(base64url_decode("Zh"), std::nullopt);  // non-zero trailing bits
  EXPECT_EQ(base64url_decode("Zg"), std::string("f"));
  EXPECT_EQ(base64url_decode("a+b/"), std::nullopt);
}

TEST(Keys, PemAndJwksRefusals) {
  EXPECT_THROW(load_pem_public_key("not a pem"), KeyError);
  const auto small = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024));
  EXPECT_THROW(load_pem_public_key(test::public_pem(small)), KeyError);
  EVP_PKEY_free(small);
  EVP_PKEY* ec = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  EXPECT_THROW(load_pem_public_key(test::public_pem(ec)), KeyError);
  EVP_PKEY_free(ec);
  // A PEM written on one line with literal \n escapes loads.
  const auto ed = test::generate_key("ED25519");
  std::string pem = test::public_pem(ed.get());
  std::string escaped;
  for (char c : pem) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  EXPECT_EQ(load_pem_public_key(escaped).type(), KeyType::Ed25519);

  EXPECT_THROW(parse_jwks("[]"), KeyError);
  EXPECT_THROW(parse_jwks("{\"keys\":{}}"), KeyError);
  EXPECT_THROW(parse_jwks("{nope"), KeyError);
  const Jwks mixed = parse_jwks(json{{"keys",
                                      {test::jwk_of(ed.get(), "ok"),
                                       {{"kty", "EC"}, {"kid", "ec"}},
                                       {{"kty", "RSA"}, {"kid", "bad"}, {"n", "!!"}, {"e", "AQAB"}},
                                       {{"kty", "OKP"}, {"crv", "X25519"}, {"kid", "x"}, {"x", "AAAA"}},
                                       json(7),
                                       {{"kty", "OKP"}, {"crv", "Ed25519"}, {"x", "AAAA"}}}}}
                                     .dump());
  EXPECT_EQ(mixed.by_kid.size(), 1u);
  EXPECT_EQ(mixed.skipped, 5);
  json enc = test::jwk_of(ed.get(), "enc");
  enc["use"] = "enc";
  EXPECT_EQ(parse_jwks(json{{"keys", {enc}}}.dump()).by_kid.size(), 0u);
}

// {"role":"read-only","role":"admin"} must not mean whichever one a parser keeps: refused, as bodies refuse it.
TEST(JwtVerifier, RepeatedMembersInTheHeaderOrThePayloadAreRefused) {
  const JwtVerifier v = hs_verifier();
  const auto signed_token = [](const std::string& header, const std::string& payload) {
    const std::string input = base64url_encode(header) + "." + base64url_encode(payload);
    return input + "." + base64url_encode(test::hs256(kSecret, input));
  };
  const std::string exp = std::to_string(kNow + 600);
  EXPECT_EQ(refusal(v, signed_token(R"({"alg":"HS256"})", R"({"role":"read-only","role":"admin","exp":)" + exp + "}")),
            "Invalid token: the payload repeats the member \"role\"");
  EXPECT_EQ(refusal(v, signed_token(R"({"alg":"HS256","alg":"HS256"})", R"({"role":"admin"})")),
            "Invalid token: the header repeats the member \"alg\"");
  EXPECT_EQ(refusal(v, signed_token(R"({"alg":"HS256"})", R"({"x":{"t":1,"t":2},"exp":)" + exp + "}")),
            "Invalid token: the payload repeats the member \"t\"");
  // The same name in two different objects is no repetition.
  const Verification ok =
      v.verify(signed_token(R"({"alg":"HS256"})", R"({"a":{"role":1},"role":"admin","exp":)" + exp + "}"), kNow);
  ASSERT_TRUE(ok.token.has_value()) << ok.error;
  EXPECT_EQ(ok.token->level, AccessLevel::Admin);
}

TEST(VerifierRules, DefaultsAreTheVariableTables) {
  const VerifierRules rules;
  EXPECT_EQ(rules.clock_skew_s, test::table_default("JWT_CLOCK_SKEW"));
  EXPECT_EQ(rules.roles_claim, test::table_default_text("JWT_ROLES_CLAIM"));
  EXPECT_EQ(rules.roles_array_claim, test::table_default_text("JWT_ROLES_ARRAY_CLAIM"));
  EXPECT_EQ(rules.role_admin, test::table_default_text("JWT_ROLE_ADMIN"));
  EXPECT_EQ(rules.role_read_write, test::table_default_text("JWT_ROLE_READ_WRITE"));
  EXPECT_EQ(rules.role_read_only, test::table_default_text("JWT_ROLE_READ_ONLY"));
  EXPECT_EQ(rules.tenant_claim, test::table_default_text("JWT_TENANT_CLAIM"));
}
