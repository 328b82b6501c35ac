#include "mesh/peer_sources.h"

#include <stdexcept>

namespace queen::mesh {

PeerSources::PeerSources(std::vector<std::string> peer_hosts, Resolver resolver)
    : peer_hosts_(std::move(peer_hosts)), resolver_(std::move(resolver)) {
  if (!resolver_) throw std::invalid_argument("PeerSources needs a resolver");
}

void PeerSources::resolve_all(Clock::time_point now) {
  std::set<std::string> allowed;
  for (const auto& host : peer_hosts_) {
    for (auto& address : resolver_(host)) allowed.insert(std::move(address));
  }
  allowed_ = std::move(allowed);
  resolved_at_ = now;
  resolved_ = true;
}

bool PeerSources::allows(const std::string& numeric_address, Clock::time_point now) {
  if (numeric_address.empty()) return false;
  if (!resolved_) resolve_all(now);
  if (allowed_.count(numeric_address) != 0) return true;
  if (now - resolved_at_ < kPeerResolveInterval) return false;
  resolve_all(now);
  return allowed_.count(numeric_address) != 0;
}

}  // namespace queen::mesh
