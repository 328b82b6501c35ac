#include "mesh/peers.h"

#include <algorithm>
#include <cctype>

namespace queen::mesh {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Decimal 1..65535, digits only (no sign, no spaces); leading zeros are tolerated.
bool parse_port(std::string_view text, std::uint16_t& port) {
  if (text.empty() || text.size() > 5) return false;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

// One trimmed, non-empty entry; returns an error text or empty.
std::string parse_entry(std::string_view entry, PeerAddress& out) {
  const std::string quoted = "'" + std::string(entry) + "'";
  if (std::any_of(entry.begin(), entry.end(), is_space)) return "peer " + quoted + " contains whitespace";

  std::string_view host;
  std::string_view port_text;
  if (entry.front() == '[') {
    const auto close = entry.find(']');
    if (close == std::string_view::npos) return "peer " + quoted + " has an unclosed '['";
    host = entry.substr(1, close - 1);
    const std::string_view rest = entry.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return "peer " + quoted + " has no port (expected [host]:port)";
    port_text = rest.substr(1);
  } else {
    const auto colon = entry.rfind(':');
    if (colon == std::string_view::npos) return "peer " + quoted + " has no port (expected host:port)";
    host = entry.substr(0, colon);
    port_text = entry.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return "peer " + quoted + " is an IPv6 address: write [addr]:port";
  }
  if (host.empty()) return "peer " + quoted + " has no host";
  if (!parse_port(port_text, out.port)) return "peer " + quoted + " has an invalid port (expected 1..65535)";
  out.host = std::string(host);
  return {};
}

}  // namespace

std::string PeerAddress::to_string() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

PeersParseResult parse_peers(std::string_view text) {
  PeersParseResult result;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view entry = trim(text.substr(0, comma));
    if (!entry.empty()) {
      PeerAddress peer;
      result.error = parse_entry(entry, peer);
      if (!result.error.empty()) {
        result.peers.clear();
        return result;
      }
      if (std::find(result.peers.begin(), result.peers.end(), peer) != result.peers.end()) {
        result.error = "peer '" + peer.to_string() + "' is listed twice";
        result.peers.clear();
        return result;
      }
      result.peers.push_back(std::move(peer));
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return result;
}

}  // namespace queen::mesh
