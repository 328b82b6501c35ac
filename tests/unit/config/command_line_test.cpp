#include "config/command_line.h"

#include <gtest/gtest.h>

#include "config/version.h"

using namespace queen::config;

TEST(CommandLine, NoArgumentRunsTheBroker) { EXPECT_EQ(parse_command_line({}).mode, CommandLine::Mode::Run); }

TEST(CommandLine, EachFlagHasItsMode) {
  EXPECT_EQ(parse_command_line({"--help"}).mode, CommandLine::Mode::Help);
  EXPECT_EQ(parse_command_line({"-h"}).mode, CommandLine::Mode::Help);
  EXPECT_EQ(parse_command_line({"--version"}).mode, CommandLine::Mode::Version);
  EXPECT_EQ(parse_command_line({"--check-config"}).mode, CommandLine::Mode::CheckConfig);
  EXPECT_EQ(parse_command_line({"--healthcheck"}).mode, CommandLine::Mode::Healthcheck);
  EXPECT_EQ(parse_command_line({"--catalogue"}).mode, CommandLine::Mode::Catalogue);
}

TEST(CommandLine, UnknownOrExtraArgumentsAreRefusedWithOneLine) {
  const CommandLine unknown = parse_command_line({"--port=7000"});
  EXPECT_EQ(unknown.mode, CommandLine::Mode::Invalid);
  EXPECT_EQ(unknown.error, "unknown argument '--port=7000' (expected --help, --version, --check-config, --healthcheck or --catalogue)");
  const CommandLine two = parse_command_line({"--version", "--help"});
  EXPECT_EQ(two.mode, CommandLine::Mode::Invalid);
  EXPECT_NE(two.error.find("one option at a time"), std::string::npos);
}

TEST(Version, TheBrokerIsARelease) {
  EXPECT_EQ(broker_version(), "2.0.0");
  EXPECT_TRUE(version_at_least(broker_version(), kMinimumSchemaVersion));
}

TEST(Version, ParsesMajorMinorPatchOnly) {
  EXPECT_EQ(parse_version("1.2.3"), (std::array<int, 3>{1, 2, 3}));
  EXPECT_EQ(parse_version("10.0.12"), (std::array<int, 3>{10, 0, 12}));
  for (const char* bad : {"", "1", "1.2", "1.2.3.4", "1.2.x", "v1.2.3", "1..3", "1.2.3-rc1", " 1.2.3"}) {
    EXPECT_FALSE(parse_version(bad)) << bad;
  }
}

TEST(Version, ComparesNumericallyAndRefusesWhatDoesNotParse) {
  EXPECT_TRUE(version_at_least("1.0.0", "1.0.0"));
  EXPECT_TRUE(version_at_least("1.10.0", "1.9.9"));
  EXPECT_TRUE(version_at_least("2.0.0", "1.99.99"));
  EXPECT_FALSE(version_at_least("0.9.9", "1.0.0"));
  EXPECT_FALSE(version_at_least("1.0.0", "1.0.1"));
  EXPECT_FALSE(version_at_least("before 1.0.0 (no queen.schema_version())", "1.0.0"));
}
