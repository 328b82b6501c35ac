#pragma once
// Parsing of QUEEN_MESH_PEERS: "host:port,host:port,...".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queen::mesh {

struct PeerAddress {
  std::string host;  // a name or an address; an IPv6 literal is stored without its brackets
  std::uint16_t port = 0;

  std::string to_string() const;  // "host:port", IPv6 literals bracketed again
  bool operator==(const PeerAddress& other) const { return host == other.host && port == other.port; }
};

struct PeersParseResult {
  std::vector<PeerAddress> peers;
  std::string error;  // empty on success; names the offending entry otherwise
  bool ok() const { return error.empty(); }
};

// Entries are separated by commas; whitespace around entries is ignored and empty entries (",,", a trailing
// comma, an empty or all-blank string) are skipped. Each entry is host:port or [ipv6]:port with a decimal port in
// 1..65535. Refused: a missing host or port, a port that is not a plain number or out of range, whitespace inside
// an entry, an unbracketed IPv6 literal, and the same peer listed twice (it would be sent every frame twice).
PeersParseResult parse_peers(std::string_view text);

}  // namespace queen::mesh
