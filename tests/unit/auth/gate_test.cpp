#include "auth/gate.h"
#include "auth/jwks_source.h"
#include "auth/keys.h"
#include "auth/token_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "config/config.h"
#include "token_support.h"
#include "../support/eventually.h"

using namespace queen;
using namespace queen::auth;
using nlohmann::json;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
const std::string kSecret = "gate-test-secret-0123456789abcdef0123";

config::JwtConfig hs_config() {
  config::JwtConfig c = config::Config::defaults().jwt;
  c.enabled = true;
  c.secret = kSecret;
  return c;
}

std::string token(json claims) {
  if (!claims.contains("exp")) claims["exp"] = kNow + 600;
  return "Bearer " + test::mint_hs256(kSecret, claims);
}

Gate::Now fixed_now() {
  return [] { return kNow; };
}

const RouteAccess kReadOnly = AccessLevel::ReadOnly;
const RouteAccess kReadWrite = AccessLevel::ReadWrite;
const RouteAccess kAdmin = AccessLevel::Admin;
const RouteAccess kPublicRoute = kPublic;

}  // namespace

TEST(SkipPaths, ExactPrefixAndBareSlash) {
  const SkipPaths skip({"/health", "/metrics", "/", "/docs/", ""});
  EXPECT_TRUE(skip.matches("/health"));
  EXPECT_TRUE(skip.matches("/"));
  EXPECT_TRUE(skip.matches("/docs/"));
  EXPECT_TRUE(skip.matches("/docs/a/b"));
  EXPECT_FALSE(skip.matches("/docs"));
  EXPECT_FALSE(skip.matches("/health/ready"));
  EXPECT_FALSE(skip.matches("/healthz"));
  EXPECT_FALSE(skip.matches("/api/v1/push"));  // a bare "/" is exact only
  EXPECT_FALSE(skip.matches(""));
}

TEST(BearerToken, SchemeIsCaseInsensitiveAndABareTokenCounts) {
  EXPECT_EQ(bearer_token("Bearer abc.def.ghi"), "abc.def.ghi");
  EXPECT_EQ(bearer_token("bearer   abc"), "abc");
  EXPECT_EQ(bearer_token("BEARER abc "), "abc");
  EXPECT_EQ(bearer_token("abc.def.ghi"), "abc.def.ghi");
  EXPECT_EQ(bearer_token("Basic dXNlcjpwYXNz"), "");
  EXPECT_EQ(bearer_token(""), "");
  EXPECT_EQ(bearer_token("Bearer "), "");
}

TEST(RouteAccess, NamesAndOrder) {
  EXPECT_EQ(to_string(kPublicRoute), "public");
  EXPECT_EQ(to_string(kReadOnly), "read-only");
  EXPECT_EQ(to_string(kReadWrite), "read-write");
  EXPECT_EQ(to_string(kAdmin), "admin");
  EXPECT_TRUE(kPublicRoute.is_public());
  EXPECT_FALSE(kAdmin.is_public());
  EXPECT_LT(AccessLevel::ReadOnly, AccessLevel::ReadWrite);
  EXPECT_LT(AccessLevel::ReadWrite, AccessLevel::Admin);
}

TEST(Gate, LevelsAgainstRoutes) {
  const Gate gate(hs_config(), nullptr, fixed_now());
  const std::string reader = token({{"sub", "r"}, {"role", "read-only"}});
  const std::string writer = token({{"sub", "w"}, {"role", "read-write"}});
  const std::string admin = token({{"sub", "a"}, {"roles", {"admin"}}, {"tenant", "acme"}});
  const std::string nobody = token({{"sub", "n"}, {"role", "guest"}});
  struct Case {
    const std::string& token;
    const RouteAccess& route;
    bool granted;
  };
  const Case cases[] = {{reader, kReadOnly, true},  {reader, kReadWrite, false}, {reader, kAdmin, false},
                        {writer, kReadOnly, true},  {writer, kReadWrite, true},  {writer, kAdmin, false},
                        {admin, kReadOnly, true},   {admin, kReadWrite, true},   {admin, kAdmin, true},
                        {nobody, kReadOnly, false}, {nobody, kReadWrite, false}, {nobody, kAdmin, false}};
  for (const Case& c : cases) {
    const AccessDecision a = gate.authorize(c.token, "/api/v1/x", &c.route);
    EXPECT_EQ(a.granted, c.granted) << c.token << " " << to_string(c.route);
    if (!c.granted) {
      EXPECT_EQ(a.status, 403);
      EXPECT_EQ(a.error, "Insufficient permissions");
    }
  }
  const AccessDecision a = gate.authorize(admin, "/api/v1/x", &kAdmin);
  EXPECT_EQ(a.principal.subject, "a");
  EXPECT_EQ(a.principal.tenant.name(), "acme");
  EXPECT_EQ(a.principal.level, AccessLevel::Admin);
}

TEST(Gate, MissingAndInvalidTokens) {
  const Gate gate(hs_config(), nullptr, fixed_now());
  AccessDecision a = gate.authorize("", "/api/v1/push", &kReadWrite);
  EXPECT_EQ(a.status, 401);
  EXPECT_EQ(a.error, "Authentication required");
  a = gate.authorize("Bearer nonsense", "/api/v1/push", &kReadWrite);
  EXPECT_EQ(a.status, 401);
  EXPECT_EQ(a.error, "Invalid token: malformed (expected header.payload.signature)");
  a = gate.authorize(token({{"role", "admin"}, {"exp", kNow - 3600}}), "/api/v1/push", &kReadWrite);
  EXPECT_EQ(a.status, 401);
  EXPECT_EQ(a.error, "Token has expired");
}

TEST(Gate, PublicRoutesSkipPathsAndUnknownPaths) {
  config::JwtConfig c = hs_config();
  c.skip_paths = {"/health", "/open/"};
  const Gate gate(c, nullptr, fixed_now());
  // A public route needs nothing, whatever JWT_SKIP_PATHS says.
  EXPECT_TRUE(gate.authorize("", "/metrics", &kPublicRoute).granted);
  EXPECT_TRUE(gate.authorize("Bearer garbage", "/metrics", &kPublicRoute).granted);
  // A skip path opens even a protected route; the principal is the anonymous one.
  const AccessDecision open = gate.authorize("", "/open/thing", &kAdmin);
  EXPECT_TRUE(open.granted);
  EXPECT_EQ(open.principal.tenant.name(), "");
  EXPECT_EQ(open.principal.subject, std::nullopt);
  // No route: a token is needed (401 without one), then any valid token gets through to the 404.
  EXPECT_EQ(gate.authorize("", "/api/v1/nothing", nullptr).status, 401);
  EXPECT_TRUE(gate.authorize(token({{"role", "nobody-knows"}}), "/api/v1/nothing", nullptr).granted);
  EXPECT_TRUE(gate.authorize("", "/open/nothing", nullptr).granted);
}

TEST(Gate, BootRefusesUnusableKeyMaterial) {
  config::JwtConfig rs = config::Config::defaults().jwt;
  rs.enabled = true;
  rs.algorithm = "RS256";
  rs.public_key_pem = "-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n";
  EXPECT_THROW(Gate(rs, nullptr, fixed_now()), KeyError);
  const auto ed = test::generate_key("ED25519");
  rs.public_key_pem = test::public_pem(ed.get());
  try {
    Gate g(rs, nullptr, fixed_now());
    FAIL() << "an Ed25519 key was accepted for RS256";
  } catch (const KeyError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot verify JWT_ALGORITHM=RS256"), std::string::npos) << e.what();
  }
  config::JwtConfig none = config::Config::defaults().jwt;
  none.enabled = true;
  none.algorithm = "RS256";
  none.secret = kSecret;  // a secret is no key for RS256
  EXPECT_THROW(Gate(none, nullptr, fixed_now()), KeyError);
  config::JwtConfig bad_alg = hs_config();
  bad_alg.algorithm = "HS512";
  EXPECT_THROW(Gate(bad_alg, nullptr, fixed_now()), KeyError);
}

TEST(Gate, JwksKeysRotateWithoutARestart) {
  const auto first = test::generate_key("RSA");
  const auto second = test::generate_key("ED25519");
  std::atomic<int> fetches{0};
  std::atomic<bool> rotated{false};
  auto fetch = [&](const std::string& url, int timeout_ms) {
    EXPECT_EQ(url, "https://issuer.example/jwks.json");
    EXPECT_EQ(timeout_ms, 5000);
    ++fetches;
    json keys = {test::jwk_of(first.get(), "k1")};
    if (rotated) keys.push_back(test::jwk_of(second.get(), "k2"));
    return FetchResult{true, json{{"keys", keys}}.dump(), ""};
  };
  config::JwtConfig c = config::Config::defaults().jwt;
  c.enabled = true;
  c.algorithm = "auto";
  c.jwks_url = "https://issuer.example/jwks.json";
  Gate gate(c, fetch, fixed_now());
  gate.start();
  EXPECT_EQ(fetches.load(), 1);
  const json claims = {{"role", "admin"}, {"exp", kNow + 60}};
  const std::string t1 = "Bearer " + test::mint_with(first.get(), claims, {{"alg", "RS256"}, {"kid", "k1"}});
  const std::string t2 = "Bearer " + test::mint_with(second.get(), claims, {{"alg", "EdDSA"}, {"kid", "k2"}});
  EXPECT_TRUE(gate.authorize(t1, "/x", &kAdmin).granted);
  rotated = true;
  // The unknown kid is refused at once (no wait on the network) and asks for a refetch.
  const AccessDecision refused = gate.authorize(t2, "/x", &kAdmin);
  EXPECT_EQ(refused.error, "Invalid token: unknown signing key");
  EXPECT_TRUE(test_support::eventually([&] { return gate.authorize(t2, "/x", &kAdmin).granted; }));
  EXPECT_EQ(fetches.load(), 2);
  gate.stop();
}

TEST(JwksSource, AFailedFetchKeepsTheLastGoodKeysAndUnknownKidsAreRateLimited) {
  const auto key = test::generate_key("ED25519");
  std::atomic<int> fetches{0};
  std::atomic<bool> failing{false};
  JwksSource source("http://127.0.0.1:1/jwks", std::chrono::seconds(3600), 100, [&](const std::string&, int) {
    ++fetches;
    if (failing) return FetchResult{false, "", "connection refused"};
    return FetchResult{true, json{{"keys", {test::jwk_of(key.get(), "k")}}}.dump(), ""};
  });
  source.start();
  ASSERT_EQ(source.key_count(), 1u);
  failing = true;
  EXPECT_FALSE(source.refresh());
  EXPECT_EQ(source.key_count(), 1u);
  EXPECT_TRUE(source.find("k"));
  // The first unknown kid fetches at once; more within kMinRefetchInterval do not.
  const int before = fetches.load();
  EXPECT_FALSE(source.find("unknown-1"));
  EXPECT_TRUE(test_support::eventually([&] { return fetches.load() != before; }));
  EXPECT_EQ(fetches.load(), before + 1);
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(source.find("unknown-2"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // what a refetch would take, to see none happen
  EXPECT_EQ(fetches.load(), before + 1);
  source.stop();
}

TEST(TokenCache, HitsOnlyForTheSameGenerationAndUnexpired) {
  TokenCache cache(2);
  VerifiedToken verified{std::nullopt, std::nullopt, Tenant::default_tenant(), std::nullopt};
  verified.subject = "s";
  verified.expires_at_s = static_cast<double>(kNow + 10);
  cache.put("token-a", 1, verified);
  ASSERT_TRUE(cache.find("token-a", 1, kNow, 0));
  EXPECT_EQ(cache.find("token-a", 1, kNow, 0)->subject, "s");
  EXPECT_FALSE(cache.find("token-b", 1, kNow, 0));
  EXPECT_FALSE(cache.find("token-a", 2, kNow, 0));       // keys reloaded since
  EXPECT_FALSE(cache.find("token-a", 1, kNow + 10, 0));  // expired
  EXPECT_TRUE(cache.find("token-a", 1, kNow + 10, 5));   // within the skew
  cache.put("token-b", 1, verified);
  cache.put("token-c", 1, verified);  // full: starts over
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.find("token-c", 1, kNow, 0));
}

TEST(Gate, ACachedTokenStillExpires) {
  std::atomic<std::int64_t> now{kNow};
  const Gate gate(hs_config(), nullptr, [&now] { return now.load(); });
  const std::string t = token({{"role", "admin"}, {"exp", kNow + 60}});
  EXPECT_TRUE(gate.authorize(t, "/x", &kAdmin).granted);
  EXPECT_TRUE(gate.authorize(t, "/x", &kAdmin).granted);  // from the cache
  EXPECT_EQ(gate.authorize(t, "/x", &kReadOnly).principal.level, AccessLevel::Operator);  // no tenant claim
  now = kNow + 60 + 30;  // past exp plus the default skew
  EXPECT_EQ(gate.authorize(t, "/x", &kAdmin).error, "Token has expired");
  // A cached admin token still meets each route's level.
  const std::string reader = token({{"role", "read-only"}});
  now = kNow;
  EXPECT_TRUE(gate.authorize(reader, "/x", &kReadOnly).granted);
  EXPECT_EQ(gate.authorize(reader, "/x", &kAdmin).status, 403);
}
