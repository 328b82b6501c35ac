#include "util/log_format.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>
#include <spdlog/details/log_msg.h>
#include <spdlog/spdlog.h>

namespace queen::util {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "DETAIL:  text" -> {"detail", "text"}: an upper-case word (spaces allowed: "SQL STATEMENT") and a colon.
bool field_line(std::string_view line, std::string& key, std::string_view& text) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 24) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = line[i];
    if (!((c >= 'A' && c <= 'Z') || c == ' ' || c == '_')) return false;
  }
  key.clear();
  for (std::size_t i = 0; i < colon; ++i) key += line[i] == ' ' ? '_' : static_cast<char>(line[i] - 'A' + 'a');
  text = trim(line.substr(colon + 1));
  return true;
}

void cut(std::string& s) {
  if (s.size() <= kMaxLogFieldBytes) return;
  const std::size_t dropped = s.size() - kMaxLogFieldBytes;
  s.resize(kMaxLogFieldBytes);
  s += "... (" + std::to_string(dropped) + " more bytes)";
}

const char* level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warn";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "critical";
    case spdlog::level::off: return "off";
    case spdlog::level::n_levels: break;
  }
  return "info";
}

}  // namespace

FoldedMessage fold_message(std::string_view text) {
  FoldedMessage folded;
  std::string* current = &folded.message;
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    if (!line.empty()) {
      std::string key;
      std::string_view field_text;
      if (!first && field_line(line, key, field_text)) {
        folded.fields.emplace_back(std::move(key), std::string(field_text));
        current = &folded.fields.back().second;
      } else {
        if (!current->empty()) *current += " | ";
        *current += line;
      }
      first = false;
    }
    if (end == text.size()) break;
  }
  cut(folded.message);
  for (auto& field : folded.fields) cut(field.second);
  return folded;
}

std::string utc_timestamp(std::chrono::system_clock::time_point at) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

bool set_log_level(std::string_view level) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err}};
  for (const auto& [name, value] : kLevels) {
    if (name != level) continue;
    const spdlog::level::level_enum chosen = value;  // a structured binding cannot be captured (C++17)
    spdlog::default_logger()->set_level(chosen);
    spdlog::apply_all([chosen](const std::shared_ptr<spdlog::logger>& logger) {
      if (logger->name() != "access") logger->set_level(chosen);
    });
    return true;
  }
  return false;
}

std::string log_level() { return level_name(spdlog::default_logger()->level()); }

void set_access_log(bool on) {
  if (auto access = spdlog::get("access")) access->set_level(on ? spdlog::level::info : spdlog::level::off);
}

bool access_log_on() {
  const auto access = spdlog::get("access");
  return access && access->should_log(spdlog::level::info);
}

LineFormatter::LineFormatter(LogFormat format, std::string server_id)
    : format_(format), server_id_(std::move(server_id)) {}

std::unique_ptr<spdlog::formatter> LineFormatter::clone() const {
  return std::make_unique<LineFormatter>(format_, server_id_);
}

void LineFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const std::string_view payload(msg.payload.data(), msg.payload.size());
  const std::string_view logger(msg.logger_name.data(), msg.logger_name.size());
  std::string line;
  if (format_ == LogFormat::Json) {
    nlohmann::ordered_json object = {{"ts", utc_timestamp(msg.time)},
                                     {"level", level_name(msg.level)},
                                     {"server", server_id_},
                                     {"logger", logger.empty() ? "queen" : std::string(logger)}};
    nlohmann::json spliced;
    if (logger == "access" && !payload.empty() && payload.front() == '{') {
      spliced = nlohmann::json::parse(payload, nullptr, false);
    }
    if (spliced.is_object()) {
      object["msg"] = "access";
      for (const auto& [key, value] : spliced.items()) {
        if (!object.contains(key)) object[key] = value;
      }
    } else {
      FoldedMessage folded = fold_message(payload);
      object["msg"] = std::move(folded.message);
      for (auto& [key, value] : folded.fields) {
        std::string name = object.contains(key) ? "db_" + key : key;
        if (object.contains(name)) {
          object[name] = object[name].get<std::string>() + " | " + value;
        } else {
          object[name] = std::move(value);
        }
      }
    }
    line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = utc_timestamp(msg.time) + ' ' + level_name(msg.level) + " [" + server_id_ + "] ";
    if (logger == "access") line += "access ";
    FoldedMessage folded = fold_message(payload);
    line += folded.message;
    for (const auto& [key, value] : folded.fields) line += " | " + key + ": " + value;
  }
  line += '\n';
  dest.append(line.data(), line.data() + line.size());
}

}  // namespace queen::util
