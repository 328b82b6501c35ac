// Every value parses strictly or is refused (docs/configuration.md, "Reading rules"): one error line per bad
// variable naming it, its value (masked when secret) and the accepted forms; all of a boot's errors together;
// unknown names with our prefixes reported beside the closest variable.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/variables.h"

using namespace queen::config;

namespace {

// The one error of `env`, or a failure listing them all.
std::string only_error(const EnvMap& env) {
  const LoadedConfig loaded = read_config(env, "h");
  std::string all;
  for (const auto& e : loaded.errors) all += "\n  " + e;
  EXPECT_EQ(loaded.errors.size(), 1u) << all;
  return loaded.errors.empty() ? "" : loaded.errors.front();
}

const Setting& setting_of(const LoadedConfig& loaded, const std::string& name) {
  const auto it = std::find_if(loaded.settings.begin(), loaded.settings.end(),
                               [&](const Setting& s) { return s.variable->name == name; });
  if (it == loaded.settings.end()) throw std::logic_error(name + " not read");
  return *it;
}

}  // namespace

TEST(StrictBooleans, AcceptTrueAndFalseInAnyCaseAndOneAndZero) {
  for (const char* yes : {"true", "TRUE", "True", "tRuE", "1"}) {
    const LoadedConfig loaded = read_config({{"PG_USE_SSL", yes}}, "h");
    EXPECT_TRUE(loaded.errors.empty()) << yes;
    EXPECT_TRUE(loaded.config.db.use_ssl) << yes;
  }
  for (const char* no : {"false", "FALSE", "False", "0"}) {
    const LoadedConfig loaded = read_config({{"PG_SSL_REJECT_UNAUTHORIZED", no}}, "h");
    EXPECT_TRUE(loaded.errors.empty()) << no;
    EXPECT_FALSE(loaded.config.db.ssl_reject_unauthorized) << no;
  }
}

TEST(StrictBooleans, RefuseEveryOtherWordNamingTheAcceptedForms) {
  for (const char* bad : {"yes", "on", "no", "off", "y", "t", "01", "2", "-1", "truee", "enabled"}) {
    const std::string error = only_error({{"JWT_ENABLED", bad}});
    EXPECT_EQ(error, "JWT_ENABLED='" + std::string(bad) +
                         "' is not a boolean (accepted: true, false (in any case), 1 or 0)");
  }
}

TEST(StrictBooleans, RefuseSurroundingWhitespaceInsteadOfTrimmingIt) {
  for (const char* bad : {"true ", " true", "1\n", "\tfalse", "true\r"}) {
    const std::string error = only_error({{"JWT_ENABLED", bad}});
    EXPECT_EQ(error, "JWT_ENABLED='" + std::string(bad) +
                         "' has leading or trailing whitespace (accepted: true, false (in any case), 1 or 0)");
  }
}

TEST(StrictBooleans, ARefusedSecurityBooleanNeverTurnsAuthenticationOrTlsOff) {
  const LoadedConfig loaded = read_config({{"JWT_ENABLED", "yes"}, {"PG_USE_SSL", "on"}}, "h");
  ASSERT_EQ(loaded.errors.size(), 2u);
  EXPECT_THROW(load_config({{"JWT_ENABLED", "yes"}}, "h"), ConfigError);
  EXPECT_THROW(load_config({{"PG_USE_SSL", "on"}}, "h"), ConfigError);
  EXPECT_TRUE(setting_of(loaded, "JWT_ENABLED").refused);
  EXPECT_EQ(loaded.refused.count("JWT_ENABLED"), 1u);
  EXPECT_EQ(loaded.refused.count("PG_USE_SSL"), 1u);
}

TEST(StrictIntegers, AcceptDigitsWithAnOptionalMinus) {
  EXPECT_EQ(load_config({{"DB_POOL_SIZE", "12"}}, "h").config.db.pool_size, 12);
  EXPECT_EQ(load_config({{"DB_POOL_SIZE", "0012"}}, "h").config.db.pool_size, 12);
  EXPECT_EQ(load_config({{"QUEEN_MESH_PORT", "-0"}}, "h").config.mesh.port, 0);
}

TEST(StrictIntegers, RefuseAnythingElseNamingTheAcceptedForms) {
  for (const char* bad : {"abc", "12abc", "1e3", "1.0", "+5", "0x10", "1_000", "1,000", "--1", "-", "12 kB"}) {
    const std::string error = only_error({{"DB_POOL_SIZE", bad}});
    EXPECT_EQ(error, "DB_POOL_SIZE='" + std::string(bad) +
                         "' is not an integer (accepted: decimal digits, optionally preceded by '-')");
  }
}

TEST(StrictIntegers, RefuseSurroundingWhitespace) {
  for (const char* bad : {"12 ", " 12", "12\t", "12\n"}) {
    EXPECT_EQ(only_error({{"DB_POOL_SIZE", bad}}),
              "DB_POOL_SIZE='" + std::string(bad) +
                  "' has leading or trailing whitespace (accepted: decimal digits, optionally preceded by '-')");
  }
}

TEST(StrictIntegers, RangeAndOverflowAreRefusedWithTheRange) {
  EXPECT_EQ(only_error({{"DB_POOL_SIZE", "0"}}), "DB_POOL_SIZE=0 is out of range [1, 10000]");
  EXPECT_EQ(only_error({{"DB_POOL_SIZE", "-3"}}), "DB_POOL_SIZE=-3 is out of range [1, 10000]");
  EXPECT_EQ(only_error({{"DB_POOL_SIZE", "99999999999999999999999"}}),
            "DB_POOL_SIZE=99999999999999999999999 is out of range [1, 10000]");
}

TEST(StrictNumbers, AcceptDecimalNumbers) {
  for (const auto& [text, value] : std::vector<std::pair<std::string, double>>{
           {"2", 2}, {"2.5", 2.5}, {"1e2", 100}, {"1.5E+1", 15}, {"10e-1", 1}}) {
    const LoadedConfig loaded = read_config({{"POP_WAIT_BACKOFF_MULTIPLIER", text}}, "h");
    EXPECT_TRUE(loaded.errors.empty()) << text;
    EXPECT_DOUBLE_EQ(loaded.config.pop.wait_backoff_multiplier, value) << text;
  }
}

TEST(StrictNumbers, RefuseWhatStrtodWouldTakeBeyondThat) {
  for (const char* bad : {"inf", "nan", "0x2", "+2", "2.", ".5", "2e", "1,5", "2x", "1e999"}) {
    const std::string error = only_error({{"POP_WAIT_BACKOFF_MULTIPLIER", bad}});
    EXPECT_EQ(error, "POP_WAIT_BACKOFF_MULTIPLIER='" + std::string(bad) +
                         "' is not a number (accepted: a decimal number such as 2, 0.5 or 1e3)");
  }
  EXPECT_EQ(only_error({{"POP_WAIT_BACKOFF_MULTIPLIER", "2 "}}),
            "POP_WAIT_BACKOFF_MULTIPLIER='2 ' has leading or trailing whitespace "
            "(accepted: a decimal number such as 2, 0.5 or 1e3)");
  EXPECT_EQ(only_error({{"POP_WAIT_BACKOFF_MULTIPLIER", "0.5"}}), "POP_WAIT_BACKOFF_MULTIPLIER=0.5 is out of range [1, 1000]");
}

TEST(StrictWords, TakeExactlyOneOfTheTableWords) {
  EXPECT_EQ(load_config({{"LOG_LEVEL", "debug"}}, "h").config.process.log_level, "debug");
  EXPECT_EQ(load_config({{"JWT_ALGORITHM", "EdDSA"}, {"JWT_ENABLED", "false"}}, "h").config.jwt.algorithm, "EdDSA");
  EXPECT_EQ(load_config({{"FILE_BUFFER_FSYNC", "batch"}}, "h").config.spool.fsync, FsyncMode::Batch);
  EXPECT_EQ(only_error({{"LOG_LEVEL", "chatty"}}), "LOG_LEVEL='chatty' is not one of trace, debug, info, warn, error");
  EXPECT_EQ(only_error({{"LOG_LEVEL", "DEBUG"}}), "LOG_LEVEL='DEBUG' is not one of trace, debug, info, warn, error");
  EXPECT_EQ(only_error({{"LOG_FORMAT", "json "}}),
            "LOG_FORMAT='json ' has leading or trailing whitespace (accepted: text, json)");
  EXPECT_EQ(only_error({{"FILE_BUFFER_FSYNC", "always"}}), "FILE_BUFFER_FSYNC='always' is not one of off, batch");
  EXPECT_EQ(only_error({{"JWT_ALGORITHM", "hs256"}}), "JWT_ALGORITHM='hs256' is not one of HS256, RS256, EdDSA, auto");
}

TEST(StrictParsing, EmptyIsUnsetAndShownAsSuch) {
  const LoadedConfig loaded = read_config({{"DB_POOL_SIZE", ""}, {"JWT_ENABLED", ""}, {"LOG_LEVEL", ""}}, "h");
  EXPECT_TRUE(loaded.errors.empty());
  EXPECT_EQ(loaded.config.db.pool_size, 25);
  const Setting& pool = setting_of(loaded, "DB_POOL_SIZE");
  EXPECT_FALSE(pool.from_environment);
  EXPECT_TRUE(pool.set_empty);
  const std::vector<std::string> lines = describe_settings(loaded.settings);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "DB_POOL_SIZE=25  (default: set empty)"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "PORT=6632  (default)"), lines.end());
}

TEST(StrictParsing, EveryErrorOfOneEnvironmentIsReportedTogether) {
  const LoadedConfig loaded = read_config(
      {{"DB_POOL_SIZE", "abc"}, {"JWT_ENABLED", "on"}, {"PORT", "0"}, {"LOG_FORMAT", "xml"}, {"DB_POOL_SIZ", "5"}},
      "h");
  EXPECT_EQ(loaded.errors.size(), 5u);
  try {
    load_config({{"DB_POOL_SIZE", "abc"}, {"PORT", "0"}}, "h");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid configuration:\n"
              "  PORT=0 is out of range [1, 65535]\n"
              "  DB_POOL_SIZE='abc' is not an integer (accepted: decimal digits, optionally preceded by '-')");
  }
}

TEST(StrictParsing, RefusedValuesAreShownQuotedOrMasked) {
  const LoadedConfig loaded = read_config({{"JWT_ENABLED", "true "}, {"DB_POOL_SIZE", "x"}}, "h");
  const std::vector<std::string> lines = describe_settings(loaded.settings);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "JWT_ENABLED='true '  (refused)"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "DB_POOL_SIZE='x'  (refused)"), lines.end());
}

TEST(StrictParsing, ARuleBetweenVariablesIsNotCheckedAgainstTheDefaultOfARefusedOne) {
  // HTTP_MAX_THREADS refused: NUM_WORKERS=100 is not compared with its default, 64 (that would be a second,
  // misleading error).
  const LoadedConfig loaded = read_config({{"NUM_WORKERS", "100"}, {"HTTP_MAX_THREADS", "lots"}}, "h");
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_NE(loaded.errors[0].find("HTTP_MAX_THREADS='lots'"), std::string::npos);
  // Both readable: the rule is checked, and names both.
  const LoadedConfig both = read_config({{"NUM_WORKERS", "100"}, {"HTTP_MAX_THREADS", "32"}}, "h");
  ASSERT_EQ(both.errors.size(), 1u);
  EXPECT_EQ(both.refused.count("NUM_WORKERS") + both.refused.count("HTTP_MAX_THREADS"), 2u);
}

TEST(StrictParsing, ListEntriesAreTrimmedAroundTheirCommas) {
  const Config c = load_config({{"QUEEN_MESH_PEERS", " b:6700 , c:6701"}, {"QUEEN_MESH_PORT", "6700"},
                                {"QUEEN_SYNC_SECRET", "s"}}, "h").config;
  EXPECT_EQ(c.mesh.peers, (std::vector<std::string>{"b:6700", "c:6701"}));
}

TEST(StrictParsing, APreviousEncryptionKeyWithoutACurrentOneIsRefused) {
  EXPECT_EQ(only_error({{"QUEEN_ENCRYPTION_KEY_PREVIOUS", std::string(64, 'a')}}),
            "QUEEN_ENCRYPTION_KEY_PREVIOUS is set without QUEEN_ENCRYPTION_KEY: the previous key only decrypts "
            "beside a current one; set QUEEN_ENCRYPTION_KEY or unset both");
}

TEST(UnknownVariables, PrefixesAreDerivedFromTheTable) {
  const std::vector<std::string>& prefixes = variable_prefixes();
  for (const char* expected : {"QUEEN_", "PG_", "DB_", "HTTP_", "JWT_", "FILE_BUFFER_", "POP_", "PUSH_", "ACK_",
                               "LOG_", "JSON_MAX_"}) {
    EXPECT_NE(std::find(prefixes.begin(), prefixes.end(), expected), prefixes.end()) << expected;
  }
  // A first word only one variable has is no prefix (MAX_BODY_BYTES, NUM_WORKERS): MAX_ and NUM_ are too common.
  EXPECT_EQ(std::find(prefixes.begin(), prefixes.end(), "MAX_"), prefixes.end());
  EXPECT_EQ(std::find(prefixes.begin(), prefixes.end(), "NUM_"), prefixes.end());
  for (const std::string& prefix : prefixes) {
    const bool shared = std::count_if(variables().begin(), variables().end(), [&](const Variable& v) {
                          return v.name.rfind(prefix, 0) == 0;
                        }) >= 2;
    EXPECT_TRUE(shared) << prefix;
  }
}

TEST(UnknownVariables, ANearMissIsAnErrorNamingTheVariableMeant) {
  EXPECT_EQ(only_error({{"DB_POOL_SIZ", "5"}}), "DB_POOL_SIZ=5 is not a queen-broker variable; did you mean DB_POOL_SIZE?");
  EXPECT_EQ(only_error({{"JWT_ENABLE", "true"}}), "JWT_ENABLE=true is not a queen-broker variable; did you mean JWT_ENABLED?");
  EXPECT_EQ(only_error({{"DB_POOL_SZIE", "5"}}), "DB_POOL_SZIE=5 is not a queen-broker variable; did you mean DB_POOL_SIZE?");
  EXPECT_EQ(only_error({{"PG_HOSTS", "a,b"}}), "PG_HOSTS=a,b is not a queen-broker variable; did you mean PG_HOST?");
  // A case-only difference, whatever the prefix.
  EXPECT_EQ(only_error({{"jwt_enabled", "true"}}), "jwt_enabled=true is not a queen-broker variable; did you mean JWT_ENABLED?");
  EXPECT_EQ(only_error({{"port", "7000"}}), "port=7000 is not a queen-broker variable; did you mean PORT?");
}

TEST(UnknownVariables, ANearMissOfASecretHidesItsValue) {
  EXPECT_EQ(only_error({{"JWT_SECRT", "hunter2"}}), "JWT_SECRT=*** is not a queen-broker variable; did you mean JWT_SECRET?");
  EXPECT_EQ(only_error({{"QUEEN_ENCRYPTION_KEYS", "abc"}}),
            "QUEEN_ENCRYPTION_KEYS=*** is not a queen-broker variable; did you mean QUEEN_ENCRYPTION_KEY?");
}

TEST(UnknownVariables, OtherNamesWithOurPrefixesAreWarningsWithoutTheirValue) {
  // Kubernetes service links of a service named "queen", a proxy setting, another program's database settings
  // (DB_PASSWORD is two edits from PG_PASSWORD, but does not begin like it).
  const LoadedConfig loaded = read_config({{"QUEEN_SERVICE_HOST", "10.0.0.1"},
                                           {"QUEEN_PORT", "tcp://10.0.0.1:6632"},
                                           {"QUEEN_PORT_6632_TCP_ADDR", "10.0.0.1"},
                                           {"HTTP_PROXY", "http://proxy:3128"},
                                           {"DB_PASSWORD", "other-app-secret"},
                                           {"PG_DSN", "x"}},
                                          "h");
  EXPECT_TRUE(loaded.errors.empty());
  ASSERT_EQ(loaded.warnings.size(), 6u);
  EXPECT_NE(std::find(loaded.warnings.begin(), loaded.warnings.end(),
                      "QUEEN_PORT is not a queen-broker variable (closest: QUEEN_MESH_PORT); ignored"),
            loaded.warnings.end());
  for (const auto& w : loaded.warnings) EXPECT_EQ(w.find("other-app-secret"), std::string::npos) << w;
}

TEST(UnknownVariables, NamesWithoutOurPrefixesAndReferenceServerVariablesAreSilent) {
  const LoadedConfig loaded = read_config({{"HOME", "/root"}, {"PATH", "/bin"}, {"PGPASSWORD", "x"},
                                           {"HOSTNAME", "pod-1"}, {"QUEEN_UDP_PEERS", "a:1"},
                                           {"QUEEN_VEGAS_ALPHA", "3"}, {"SIDECAR_POOL", "1"}},
                                          "h");
  EXPECT_TRUE(loaded.errors.empty());
  EXPECT_TRUE(loaded.warnings.empty());
  EXPECT_EQ(loaded.ignored.size(), 3u);
}
