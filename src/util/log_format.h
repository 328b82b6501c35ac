#pragma once
// The broker's log lines (LOG_FORMAT, docs/operations-logs.md): one line per event, the timestamp
// in UTC with its zone (2026-12-02T16:33:39.123Z), in one of two formats:
//   text  2026-12-02T16:33:39.123Z info [server-id] message
//   json  {"ts":"2026-12-02T16:33:39.123Z","level":"info","server":"server-id","logger":"queen","msg":"message"}
// A message of several lines (a database error: ERROR, DETAIL, HINT, CONTEXT ... lines) is folded:
// its first line is the message, each "KEY:  text" line a field of its own (json: "detail", "hint",
// "context", ...; text: " | detail: ..."), and other lines continue the field before them. A message
// of the access logger that is a JSON object (http/transport/access_log.h) is spliced in as fields (json).
// Every field is cut at kMaxLogFieldBytes.
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/formatter.h>

namespace queen::util {

enum class LogFormat { Text, Json };

inline constexpr std::size_t kMaxLogFieldBytes = 4096;

// The message's first line and its folded fields, in order (pure).
struct FoldedMessage {
  std::string message;
  std::vector<std::pair<std::string, std::string>> fields;  // lowercase key, text
};
FoldedMessage fold_message(std::string_view text);

// ISO-8601 UTC with milliseconds and "Z".
std::string utc_timestamp(std::chrono::system_clock::time_point at);

// The level of every logger but "access" (LOG_LEVEL's words: trace|debug|info|warn|error); false
// for another word. And the access log on or off (ACCESS_LOG). Both take effect at once, process-wide.
bool set_log_level(std::string_view level);
std::string log_level();
void set_access_log(bool on);
bool access_log_on();

class LineFormatter final : public spdlog::formatter {
 public:
  LineFormatter(LogFormat format, std::string server_id);
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  const LogFormat format_;
  const std::string server_id_;
};

}  // namespace queen::util
