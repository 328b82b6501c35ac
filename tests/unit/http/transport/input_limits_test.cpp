// Name-like values (input_limits.h): UTF-8, NUL and length checks.
#include "http/transport/input_limits.h"

#include <gtest/gtest.h>

#include "http/transport/http_types.h"

using namespace queen;
using namespace queen::http;

namespace {

std::string name_error(const std::string& value, int max_chars = 255) {
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.name_max_chars = max_chars;
  try {
    check_name(value, "queue", limits);
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("orders-7"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9"));                // é
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));               // €
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x98\x80"));           // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));           // U+10FFFF
  EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));               // U+D7FF, just below the surrogates
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));       // NUL is UTF-8; check_name refuses it
}

TEST(Utf8, RefusesIllFormedText) {
  for (const std::string& bad : {std::string("\x80"), std::string("\xBF"), std::string("\xC0\xAF"),
                                std::string("\xC1\xBF"), std::string("\xC3"), std::string("\xE2\x82"),
                                std::string("\xE0\x80\xAF"), std::string("\xED\xA0\x80"),
                                std::string("\xF0\x80\x80\xAF"), std::string("\xF4\x90\x80\x80"),
                                std::string("\xF5\x80\x80\x80"), std::string("\xFF"), std::string("ok\xC3(")}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << testing::PrintToString(bad);
  }
}

TEST(Utf8, LengthCountsCharacters) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("caf\xC3\xA9"), 4u);
  EXPECT_EQ(utf8_length("\xF0\x9F\x98\x80!"), 2u);
}

TEST(CheckName, RefusesInvalidUtf8NulAndOverLongNames) {
  EXPECT_EQ(name_error("orders"), "<no error>");
  EXPECT_EQ(name_error(std::string(255, 'q')), "<no error>");
  EXPECT_EQ(name_error(std::string(256, 'q')), "queue must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(name_error("abcdef", 5), "queue must be at most 5 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(name_error(std::string("orders\0x", 8)), "queue must not contain NUL characters");
  EXPECT_EQ(name_error("orders\xFF"), "queue must be valid UTF-8");
}
