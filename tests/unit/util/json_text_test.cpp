#include "util/json_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace queen::util;

TEST(JsonText, EscapesQuotesBackslashesAndControls) {
  std::string out;
  append_json_string(out, std::string("a\"b\\c\nd\te\x01\x00", 11));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u0000\"");
}

TEST(JsonText, RoundTripsThroughAParser) {
  const std::string tricky = "q\xC3\xA9ue/\"x\"\r\n\b\f\x1f end";
  std::string out;
  append_json_string(out, tricky);
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), tricky);
}

TEST(JsonText, OptionalAndKeys) {
  std::string out = "{";
  append_json_key(out, "k");
  append_json_string_or_null(out, std::nullopt);
  out += ',';
  append_json_key(out, "v");
  append_json_string_or_null(out, std::string("x"));
  out += '}';
  EXPECT_EQ(out, "{\"k\":null,\"v\":\"x\"}");
}

TEST(JsonText, MembersFollowAnEarlierOneAndAnAbsentOneIsLeftOut) {
  std::string out = "{\"a\":1";
  append_json_member(out, "b", "x\"y");
  append_json_member_if_set(out, "c", std::optional<std::string>());
  append_json_member_if_set(out, "d", std::optional<std::string>("z"));
  out += '}';
  EXPECT_EQ(out, "{\"a\":1,\"b\":\"x\\\"y\",\"d\":\"z\"}");
  EXPECT_EQ(nlohmann::json::parse(out), nlohmann::json::parse(R"({"a":1,"b":"x\"y","d":"z"})"));
}
