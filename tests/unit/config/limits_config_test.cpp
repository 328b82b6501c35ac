// Request limits (LimitsConfig, docs/limits.md): names, defaults and ranges.
#include <gtest/gtest.h>

#include <algorithm>

#include "config/config.h"

using namespace queen::config;

TEST(LimitsConfig, Defaults) {
  const LoadedConfig loaded = load_config({}, "h");
  const LimitsConfig& l = loaded.config.limits;
  EXPECT_EQ(l.json_max_depth, 64);
  EXPECT_EQ(l.json_max_string_bytes, 8LL * 1024 * 1024);
  EXPECT_EQ(l.json_max_array_items, 50000);
  EXPECT_EQ(l.json_max_object_keys, 10000);
  EXPECT_EQ(l.json_max_values, 1000000);
  EXPECT_EQ(l.push_max_items, 10000);
  EXPECT_EQ(l.name_max_chars, 255);
  // Config::defaults() holds the same (parsers default to them).
  const LimitsConfig fresh = queen::config::Config::defaults().limits;
  EXPECT_EQ(fresh.json_max_depth, l.json_max_depth);
  EXPECT_EQ(fresh.json_max_string_bytes, l.json_max_string_bytes);
  EXPECT_EQ(fresh.json_max_values, l.json_max_values);
  EXPECT_EQ(fresh.push_max_items, l.push_max_items);
  EXPECT_EQ(fresh.name_max_chars, l.name_max_chars);
}

TEST(LimitsConfig, EveryLimitIsReadFromItsVariable) {
  const LoadedConfig loaded = load_config({{"JSON_MAX_DEPTH", "16"},
                                           {"JSON_MAX_STRING_BYTES", "1048576"},
                                           {"JSON_MAX_ARRAY_ITEMS", "2000"},
                                           {"JSON_MAX_OBJECT_KEYS", "300"},
                                           {"JSON_MAX_VALUES", "50000"},
                                           {"PUSH_MAX_ITEMS", "500"},
                                           {"NAME_MAX_CHARS", "64"}},
                                          "h");
  const LimitsConfig& l = loaded.config.limits;
  EXPECT_EQ(l.json_max_depth, 16);
  EXPECT_EQ(l.json_max_string_bytes, 1048576);
  EXPECT_EQ(l.json_max_array_items, 2000);
  EXPECT_EQ(l.json_max_object_keys, 300);
  EXPECT_EQ(l.json_max_values, 50000);
  EXPECT_EQ(l.push_max_items, 500);
  EXPECT_EQ(l.name_max_chars, 64);
  EXPECT_TRUE(loaded.warnings.empty());
}

TEST(LimitsConfig, UnsafeValuesStopTheBoot) {
  // Names longer than the 255-character CHECKs of the schema, nesting deep
  // enough to threaten the handler stacks, strings larger than one jsonb string.
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"NAME_MAX_CHARS", "256"},
           {"NAME_MAX_CHARS", "0"},
           {"JSON_MAX_DEPTH", "100000"},
           {"JSON_MAX_DEPTH", "2"},
           {"JSON_MAX_STRING_BYTES", "268435456"},
           {"JSON_MAX_ARRAY_ITEMS", "0"},
           {"JSON_MAX_OBJECT_KEYS", "-1"},
           {"JSON_MAX_VALUES", "10"},
           {"PUSH_MAX_ITEMS", "0"}}) {
    try {
      load_config({{name, value}}, "h");
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(LimitsConfig, UnparsableValuesAreRefused) {
  const LoadedConfig loaded = read_config({{"JSON_MAX_DEPTH", "deep"}}, "h");
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_NE(loaded.errors[0].find("JSON_MAX_DEPTH='deep' is not an integer"), std::string::npos);
}

TEST(LimitsConfig, DescribedOnALineOfTheirOwn) {
  const std::vector<std::string> lines = describe_config(load_config({{"PUSH_MAX_ITEMS", "77"}}, "h").config);
  const auto line = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.rfind("config: limits ", 0) == 0; });
  ASSERT_NE(line, lines.end());
  EXPECT_NE(line->find("json_max_depth=64"), std::string::npos) << *line;
  EXPECT_NE(line->find("push_max_items=77"), std::string::npos) << *line;
  EXPECT_NE(line->find("name_max_chars=255"), std::string::npos) << *line;
}

TEST(LimitsConfig, ListingBoundsAreReadRangedAndDescribed) {
  const Config defaults = load_config({}, "h").config;
  EXPECT_EQ(defaults.limits.list_max_payload_bytes, 4LL << 20);
  EXPECT_EQ(defaults.limits.list_max_offset, 10000);
  const Config set =
      load_config({{"QUEEN_LIST_MAX_PAYLOAD_BYTES", "0"}, {"QUEEN_LIST_MAX_OFFSET", "500"}}, "h").config;
  EXPECT_EQ(set.limits.list_max_payload_bytes, 0);
  EXPECT_EQ(set.limits.list_max_offset, 500);
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"QUEEN_LIST_MAX_PAYLOAD_BYTES", "-1"}, {"QUEEN_LIST_MAX_OFFSET", "-1"}}) {
    try {
      load_config({{name, value}}, "h");
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  const std::vector<std::string> lines = describe_config(set);
  const auto line = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.rfind("config: limits ", 0) == 0; });
  ASSERT_NE(line, lines.end());
  EXPECT_NE(line->find("list_max_payload_bytes=0 list_max_offset=500"), std::string::npos) << *line;
}
