#include <gtest/gtest.h>

#include <algorithm>

#include "config/config.h"
#include "config_error.h"

using namespace queen::config;
using queen::config::testing::config_error_of;

TEST(JwtConfig, DefaultsAreOffWithTheDocumentedValues) {
  const JwtConfig j = load_config({}, "h").config.jwt;
  EXPECT_FALSE(j.enabled);
  EXPECT_EQ(j.algorithm, "HS256");
  EXPECT_EQ(j.clock_skew_s, 30);
  EXPECT_EQ(j.skip_paths, (std::vector<std::string>{"/health", "/metrics/prometheus", "/metrics", "/"}));
  EXPECT_EQ(j.jwks_refresh_interval_s, 3600);
  EXPECT_EQ(j.jwks_timeout_ms, 5000);
  EXPECT_EQ(j.roles_claim, "role");
  EXPECT_EQ(j.roles_array_claim, "roles");
  EXPECT_EQ(j.role_admin, "admin");
  EXPECT_EQ(j.role_read_write, "read-write");
  EXPECT_EQ(j.role_read_only, "read-only");
  EXPECT_EQ(j.tenant_claim, "tenant");
}

TEST(JwtConfig, ReadsEverySetting) {
  const JwtConfig j = load_config({{"JWT_ENABLED", "true"},
                                   {"JWT_ALGORITHM", "auto"},
                                   {"JWT_SECRET", "s"},
                                   {"JWT_PUBLIC_KEY", "pem"},
                                   {"JWT_JWKS_URL", "https://idp/jwks"},
                                   {"JWT_ISSUER", "iss"},
                                   {"JWT_AUDIENCE", "aud"},
                                   {"JWT_CLOCK_SKEW", "5"},
                                   {"JWT_SKIP_PATHS", " /health , /docs/ ,"},
                                   {"JWT_JWKS_REFRESH_INTERVAL", "60"},
                                   {"JWT_JWKS_TIMEOUT_MS", "250"},
                                   {"JWT_ROLES_CLAIM", "r"},
                                   {"JWT_ROLES_ARRAY_CLAIM", "rs"},
                                   {"JWT_ROLE_ADMIN", "ops"},
                                   {"JWT_ROLE_READ_WRITE", "app"},
                                   {"JWT_ROLE_READ_ONLY", "dash"},
                                   {"JWT_TENANT_CLAIM", "org"}},
                                  "h")
                          .config.jwt;
  EXPECT_TRUE(j.enabled);
  EXPECT_EQ(j.algorithm, "auto");
  EXPECT_EQ(j.secret, "s");
  EXPECT_EQ(j.public_key_pem, "pem");
  EXPECT_EQ(j.jwks_url, "https://idp/jwks");
  EXPECT_EQ(j.issuer, "iss");
  EXPECT_EQ(j.audience, "aud");
  EXPECT_EQ(j.clock_skew_s, 5);
  EXPECT_EQ(j.skip_paths, (std::vector<std::string>{"/health", "/docs/"}));
  EXPECT_EQ(j.jwks_refresh_interval_s, 60);
  EXPECT_EQ(j.jwks_timeout_ms, 250);
  EXPECT_EQ(j.roles_claim, "r");
  EXPECT_EQ(j.roles_array_claim, "rs");
  EXPECT_EQ(j.role_admin, "ops");
  EXPECT_EQ(j.role_read_write, "app");
  EXPECT_EQ(j.role_read_only, "dash");
  EXPECT_EQ(j.tenant_claim, "org");
}

TEST(JwtConfig, EnabledWithoutKeysOrWithAnUnknownAlgorithmDoesNotBoot) {
  EXPECT_NE(config_error_of({{"JWT_ENABLED", "true"}}).find("JWT_ALGORITHM=HS256 needs JWT_SECRET"), std::string::npos);
  EXPECT_NE(config_error_of({{"JWT_ENABLED", "true"}, {"JWT_ALGORITHM", "EdDSA"}, {"JWT_SECRET", "s"}})
                .find("needs JWT_PUBLIC_KEY or JWT_JWKS_URL"),
            std::string::npos);
  EXPECT_NE(config_error_of({{"JWT_ENABLED", "true"}, {"JWT_ALGORITHM", "auto"}}).find("JWT_ALGORITHM=auto needs"),
            std::string::npos);
  EXPECT_NE(config_error_of({{"JWT_ALGORITHM", "none"}}).find("JWT_ALGORITHM='none'"), std::string::npos);
  EXPECT_NE(config_error_of({{"JWT_CLOCK_SKEW", "-1"}}).find("JWT_CLOCK_SKEW"), std::string::npos);
  // Off, missing keys are fine; RS256 with a JWKS URL alone is enough.
  EXPECT_EQ(config_error_of({{"JWT_ALGORITHM", "RS256"}}), "");
  EXPECT_EQ(config_error_of({{"JWT_ENABLED", "true"}, {"JWT_ALGORITHM", "RS256"}, {"JWT_JWKS_URL", "http://x"}}), "");
}

TEST(JwtConfig, DescribeMasksTheSecretAndHidesTheJwksUrl) {
  const Config c = load_config({{"JWT_ENABLED", "true"},
                                {"JWT_SECRET", "jwt-secret-value"},
                                {"JWT_JWKS_URL", "https://user:pw@idp/jwks"}},
                               "h")
                       .config;
  const std::vector<std::string> lines = describe_config(c);
  const auto jwt = std::find_if(lines.begin(), lines.end(),
                                [](const std::string& l) { return l.rfind("config: jwt ", 0) == 0; });
  ASSERT_NE(jwt, lines.end());
  EXPECT_NE(jwt->find("enabled=true"), std::string::npos) << *jwt;
  EXPECT_NE(jwt->find("secret=***"), std::string::npos) << *jwt;
  EXPECT_NE(jwt->find("jwks_url=(set)"), std::string::npos) << *jwt;
  for (const auto& line : lines) {
    EXPECT_EQ(line.find("jwt-secret-value"), std::string::npos) << line;
    EXPECT_EQ(line.find("user:pw"), std::string::npos) << line;
  }
}
