// The variable table (src/config/variables.cpp) against what load_config reads,
// --help, --check-config and docs/configuration.md.
#include "config/variables.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "config/config.h"

using namespace queen::config;

namespace {

constexpr const char* kReferencePath = QUEEN_SOURCE_DIR "/docs/configuration.md";
// The line after which docs/configuration.md is render_reference_markdown().
constexpr const char* kGeneratedMarker = "<!-- generated from src/config/variables.cpp";

std::set<std::string> names_read_by_load_config() {
  std::set<std::string> names;
  for (const Setting& s : load_config({}, "h").settings) names.insert(std::string(s.variable->name));
  return names;
}

std::set<std::string> names_in_table() {
  std::set<std::string> names;
  for (const Variable& v : variables()) names.insert(std::string(v.name));
  return names;
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The reference's text before its generated part (marker line included), and the generated part.
std::pair<std::string, std::string> split_reference(const std::string& doc) {
  const auto marker = doc.find(kGeneratedMarker);
  if (marker == std::string::npos) return {doc, ""};
  const auto end_of_line = doc.find('\n', marker);
  const auto cut = end_of_line == std::string::npos ? doc.size() : end_of_line + 1;
  return {doc.substr(0, cut), doc.substr(cut)};
}

// Everything a Config holds, as text: the lines describe_config logs and the
// session settings every connection carries (the stream limits and storage
// quotas describe_config leaves to them).
std::vector<std::string> config_text(const Config& c) {
  std::vector<std::string> lines = describe_config(c);
  for (const auto& [name, value] : c.db.session_settings) lines.push_back(name + "=" + value);
  lines.push_back("secrets " + c.db.password + " " + c.jwt.secret + " " + c.jwt.public_key_pem + " " + c.jwt.jwks_url +
                  " " + c.mesh.sync_secret + " " + c.encryption_key + " " + c.encryption_key_previous);
  return lines;
}

}  // namespace

TEST(Variables, NamesAreUniqueAndNoneIsAReferenceServerSetting) {
  EXPECT_EQ(names_in_table().size(), variables().size());
  for (const Variable& v : variables()) {
    EXPECT_FALSE(is_reference_only_variable(std::string(v.name))) << v.name;
    EXPECT_FALSE(v.doc.empty()) << v.name;
    EXPECT_FALSE(v.group.empty()) << v.name;
    if (v.kind == VariableKind::Integer || v.kind == VariableKind::Number) {
      EXPECT_LE(v.min, v.max) << v.name;
    }
  }
}

TEST(Variables, LoadConfigReadsExactlyTheTable) {
  EXPECT_EQ(names_read_by_load_config(), names_in_table());
}

TEST(Variables, TableDefaultsAreTheDefaultsLoadConfigUses) {
  const LoadedConfig loaded = load_config({}, "h");
  ASSERT_EQ(loaded.settings.size(), variables().size());
  for (const Setting& s : loaded.settings) {
    EXPECT_FALSE(s.from_environment) << s.variable->name;
    if (!s.variable->derived) {
      EXPECT_EQ(s.value, s.variable->default_text) << s.variable->name;
    }
  }
}

TEST(Variables, TheTableIsTheOnlyPlaceOfADefault) {
  // Every variable whose default is a value: set to its table default_text, it
  // loads the same Config as when it is absent, so the default load_config
  // applies is the table's (Config's fields have no defaults of their own).
  const std::vector<std::string> defaults = config_text(load_config({}, "h").config);
  EXPECT_EQ(config_text(Config::defaults()), config_text(load_config({}, "queen").config));
  for (const Variable& v : variables()) {
    if (v.derived || v.default_text.empty()) continue;  // derived: their own tests; empty is unset
    const LoadedConfig loaded = load_config({{std::string(v.name), std::string(v.default_text)}}, "h");
    EXPECT_TRUE(loaded.warnings.empty()) << v.name;
    EXPECT_EQ(config_text(loaded.config), defaults) << v.name << "=" << v.default_text;
  }
}

TEST(Variables, RangesOfTheTableAreEnforced) {
  for (const Variable& v : variables()) {
    if (v.kind != VariableKind::Integer) continue;
    // One below the minimum (above the maximum, some would also break a cross-variable rule first).
    try {
      load_config({{std::string(v.name), std::to_string(v.min - 1)}}, "h");
      ADD_FAILURE() << v.name << "=" << v.min - 1 << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(v.name) + "=" + std::to_string(v.min - 1) +
                                           " is out of range " + range_text(v)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Variables, HelpListsEveryVariableWithDefaultRangeAndUnit) {
  const std::string help = render_help();
  for (const Variable& v : variables()) {
    std::string line = "  " + std::string(v.name) + "  default ";
    const auto at = help.find(line);
    ASSERT_NE(at, std::string::npos) << v.name;
    const std::string rest = help.substr(at, help.find('\n', at) - at);
    EXPECT_NE(rest.find("  range " + range_text(v)), std::string::npos) << rest;
    if (!v.unit.empty()) {
      EXPECT_NE(rest.find("  unit " + std::string(v.unit)), std::string::npos) << rest;
    }
  }
  for (const char* flag : {"--help", "--version", "--check-config", "--healthcheck"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
}

TEST(Variables, CheckConfigShowsEveryValueMarksDefaultsAndMasksSecrets) {
  const LoadedConfig loaded = load_config(
      {{"PORT", "7001"}, {"PG_PASSWORD", "hunter2"}, {"JWT_SECRET", "s3cret"}, {"QUEEN_SYNC_SECRET", ""}}, "h");
  const std::vector<std::string> lines = describe_settings(loaded.settings);
  ASSERT_EQ(lines.size(), variables().size());
  const auto has = [&lines](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("PORT=7001"));
  EXPECT_TRUE(has("HOST=0.0.0.0  (default)"));
  EXPECT_TRUE(has("PG_PASSWORD=***"));
  EXPECT_TRUE(has("JWT_SECRET=***"));
  EXPECT_TRUE(has("QUEEN_SYNC_SECRET=(unset)  (default: set empty)"));
  EXPECT_TRUE(has("JWT_JWKS_URL=(unset)  (default)"));
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("hunter2"), std::string::npos) << line;
    EXPECT_EQ(line.find("s3cret"), std::string::npos) << line;
  }
}

TEST(Variables, ReferenceServerSettingsMatchByNameOrPattern) {
  EXPECT_TRUE(is_reference_only_variable("QUEEN_CACHE_PARTITION_MAX"));
  EXPECT_TRUE(is_reference_only_variable("SIDECAR_POOL_SIZE"));
  EXPECT_TRUE(is_reference_only_variable("QUEEN_PUSH_MAX_HOLD_MS"));
  EXPECT_FALSE(is_reference_only_variable("QUEEN__MAX_HOLD_MS_"));
  EXPECT_FALSE(is_reference_only_variable("QUEEN_MAX_HOLD_MS"));  // the star stands for at least one character
  EXPECT_FALSE(is_reference_only_variable("PORT"));
}

// docs/configuration.md below its marker is render_reference_markdown(), so it lists every variable the
// broker reads and no other. QUEEN_UPDATE_DOCS=1 rewrites that part after the table changed.
TEST(ConfigReference, DocsConfigurationMdIsTheTable) {
  const std::string doc = read_file(kReferencePath);
  auto [head, generated] = split_reference(doc);
  ASSERT_NE(head.find(kGeneratedMarker), std::string::npos) << kReferencePath << " lacks its generated marker";
  const std::string expected = render_reference_markdown();
  if (const char* update = std::getenv("QUEEN_UPDATE_DOCS"); update != nullptr && std::string(update) == "1") {
    std::ofstream(kReferencePath) << head << expected;
    generated = expected;
  }
  EXPECT_EQ(generated, expected) << "docs/configuration.md is out of date: QUEEN_UPDATE_DOCS=1 ctest -R ConfigReference";

  // Independently of the rendering: the variables the doc lists are the ones load_config reads.
  std::set<std::string> listed;
  const std::regex row("^\\| `([A-Z0-9_]+)` \\|");
  std::istringstream lines(generated);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) listed.insert(m[1]);
  }
  EXPECT_EQ(listed, names_read_by_load_config());
}
