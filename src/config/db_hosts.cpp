#include "config/db_hosts.h"

#include <string>

namespace queen::config {
namespace {

constexpr int kMinPort = 1;
constexpr int kMaxPort = 65535;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Splits on every comma, keeping empty entries so the callers can refuse them.
std::vector<std::string> entries(const std::string& text) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    out.push_back(trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

bool parse_port(const std::string& text, int& port) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 5) return false;
  port = std::stoi(text);
  return port >= kMinPort && port <= kMaxPort;
}

}  // namespace

std::vector<std::string> parse_db_hosts(const std::string& text, std::string& error) {
  std::vector<std::string> hosts = entries(text);
  for (const auto& host : hosts) {
    if (host.empty()) {
      error = "PG_HOST='" + text + "' has an empty entry (expected host or host1,host2,...)";
      return {};
    }
  }
  return hosts;
}

std::vector<int> parse_db_ports(const std::string& text, std::size_t host_count, std::string& error) {
  std::vector<int> ports;
  for (const auto& entry : entries(text)) {
    int port = 0;
    if (!parse_port(entry, port)) {
      error = "PG_PORT='" + text + "': '" + entry + "' is not a port in [1, 65535]";
      return {};
    }
    ports.push_back(port);
  }
  if (ports.size() != 1 && ports.size() != host_count) {
    error = "PG_PORT='" + text + "' lists " + std::to_string(ports.size()) + " ports for " +
            std::to_string(host_count) + " hosts of PG_HOST (give one port for all, or one per host)";
    return {};
  }
  return ports;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    out += item;
  }
  return out;
}

std::string join_list(const std::vector<int>& items) {
  std::vector<std::string> texts;
  texts.reserve(items.size());
  for (int item : items) texts.push_back(std::to_string(item));
  return join_list(texts);
}

}  // namespace queen::config
