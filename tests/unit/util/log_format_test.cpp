#include "util/log_format.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spdlog/details/log_msg.h>

using namespace queen::util;

namespace {

std::string formatted(LogFormat format, const char* logger, spdlog::level::level_enum level, std::string_view text) {
  LineFormatter formatter(format, "b1");
  spdlog::details::log_msg msg(logger, level, spdlog::string_view_t(text.data(), text.size()));
  msg.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764693219123));  // 2025-12-02T16:33:39.123Z
  spdlog::memory_buf_t out;
  formatter.format(msg, out);
  return std::string(out.data(), out.size());
}

}  // namespace

TEST(LogFormat, TimestampsAreUtcWithTheirZone) {
  EXPECT_EQ(utc_timestamp(std::chrono::system_clock::time_point(std::chrono::milliseconds(1764693219123))),
            "2025-12-02T16:33:39.123Z");
  EXPECT_EQ(utc_timestamp(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
}

TEST(LogFormat, ADatabaseErrorIsFoldedIntoFields) {
  const FoldedMessage folded = fold_message(
      "db: request rejected (22023): configure_queue: ERROR:  option leaseTime must be an integer, got soon\n"
      "CONTEXT:  PL/pgSQL function queen.option_int(jsonb,text,integer) line 7 at RAISE\n"
      "PL/pgSQL function queen.configure_queue(text,text,text,jsonb,text) line 40 at assignment\n"
      "HINT:  give a number\n");
  EXPECT_EQ(folded.message,
            "db: request rejected (22023): configure_queue: ERROR:  option leaseTime must be an integer, got soon");
  ASSERT_EQ(folded.fields.size(), 2u);
  EXPECT_EQ(folded.fields[0].first, "context");
  EXPECT_EQ(folded.fields[0].second,
            "PL/pgSQL function queen.option_int(jsonb,text,integer) line 7 at RAISE | "
            "PL/pgSQL function queen.configure_queue(text,text,text,jsonb,text) line 40 at assignment");
  EXPECT_EQ(folded.fields[1], (std::pair<std::string, std::string>{"hint", "give a number"}));
}

TEST(LogFormat, OneLineMessagesStayAsTheyAreAndLongFieldsAreCut) {
  EXPECT_EQ(fold_message("spool: entering spool mode").message, "spool: entering spool mode");
  EXPECT_TRUE(fold_message("x: NOT A FIELD ON THE FIRST LINE").fields.empty());
  const std::string huge(kMaxLogFieldBytes + 10, 'a');
  const FoldedMessage cut = fold_message(huge);
  EXPECT_EQ(cut.message, std::string(kMaxLogFieldBytes, 'a') + "... (10 more bytes)");
}

TEST(LogFormat, TextIsOneLine) {
  EXPECT_EQ(formatted(LogFormat::Text, "", spdlog::level::warn, "db: failed\nDETAIL:  why"),
            "2025-12-02T16:33:39.123Z warn [b1] db: failed | detail: why\n");
}

TEST(LogFormat, JsonIsOneObjectPerLine) {
  const std::string line = formatted(LogFormat::Json, "spool", spdlog::level::err, "spool: boom\nDETAIL:  \"quoted\"");
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const auto object = nlohmann::json::parse(line);
  EXPECT_EQ(object, nlohmann::json::parse(R"({"ts":"2025-12-02T16:33:39.123Z","level":"error","server":"b1",
                                               "logger":"spool","msg":"spool: boom","detail":"\"quoted\""})"));
}

TEST(LogFormat, AccessLinesBecomeFieldsOfTheJsonLine) {
  const auto object = nlohmann::json::parse(
      formatted(LogFormat::Json, "access", spdlog::level::info, R"({"status":201,"requestId":"r-1","level":"x"})"));
  EXPECT_EQ(object["status"], 201);
  EXPECT_EQ(object["requestId"], "r-1");
  EXPECT_EQ(object["level"], "info");  // a field of the line is never replaced
  EXPECT_EQ(object["logger"], "access");
}
