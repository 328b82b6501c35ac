#pragma once
// Which source addresses may open an inbound mesh connection: the addresses the hosts of QUEEN_MESH_PEERS
// resolve to. The HMAC already refuses frames without the secret; this check also refuses a holder of the
// secret who is not one of the configured peers, before a single frame is read.
//
// Names are resolved at start and again when an unknown address connects, at most once per
// kPeerResolveInterval, so a peer that came back with a new address (a rescheduled container) is let in
// within seconds while a stranger cannot make the receive loop resolve names on every connect.
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace queen::mesh {

inline constexpr std::chrono::milliseconds kPeerResolveInterval{5'000};

class PeerSources {
 public:
  using Clock = std::chrono::steady_clock;
  // Numeric addresses of one host name (empty when it does not resolve).
  using Resolver = std::function<std::vector<std::string>(const std::string& host)>;

  PeerSources(std::vector<std::string> peer_hosts, Resolver resolver);

  // True when `numeric_address` (numeric_host form) belongs to a configured peer as of `now`.
  bool allows(const std::string& numeric_address, Clock::time_point now);

 private:
  void resolve_all(Clock::time_point now);

  const std::vector<std::string> peer_hosts_;
  const Resolver resolver_;
  std::set<std::string> allowed_;
  Clock::time_point resolved_at_;
  bool resolved_ = false;
};

}  // namespace queen::mesh
