#include "mesh/replay_guard.h"

namespace queen::mesh {

const char* to_string(ReplayVerdict verdict) noexcept {
  switch (verdict) {
    case ReplayVerdict::Accepted: return "accepted";
    case ReplayVerdict::Replayed: return "replayed";
    case ReplayVerdict::Stale: return "stale";
    case ReplayVerdict::TooManySenders: return "too_many_senders";
  }
  return "unknown";
}

ReplayGuard::ReplayGuard(ReplayGuardOptions options) : options_(options) {}

bool ReplayGuard::make_room(std::int64_t now_ms) {
  if (senders_.size() < options_.max_senders) return true;
  for (auto it = senders_.begin(); it != senders_.end();) {
    if (now_ms - it->second.last_accepted_local_ms > options_.max_clock_skew_ms) {
      it = senders_.erase(it);
    } else {
      ++it;
    }
  }
  return senders_.size() < options_.max_senders;
}

ReplayVerdict ReplayGuard::check_and_record(const std::string& sender_id, std::uint64_t boot_id,
                                            std::uint64_t sequence, std::int64_t timestamp_ms,
                                            std::int64_t now_ms) {
  // |timestamp - now| in unsigned arithmetic: the timestamp is whatever the peer sealed, and a signed
  // difference of two far-apart int64 values overflows (undefined; in practice it wrapped negative and let a
  // frame from the far past or future through as fresh).
  const auto ts = static_cast<std::uint64_t>(timestamp_ms);
  const auto now = static_cast<std::uint64_t>(now_ms);
  const std::uint64_t skew = timestamp_ms > now_ms ? ts - now : now - ts;
  if (options_.max_clock_skew_ms < 0 || skew > static_cast<std::uint64_t>(options_.max_clock_skew_ms))
    return ReplayVerdict::Stale;

  auto it = senders_.find(sender_id);
  if (it == senders_.end()) {
    if (!make_room(now_ms)) return ReplayVerdict::TooManySenders;
    senders_.emplace(sender_id, SenderState{boot_id, sequence, now_ms});
    return ReplayVerdict::Accepted;
  }

  SenderState& state = it->second;
  bool accept = false;
  if (boot_id == state.boot_id) {
    accept = sequence > state.highest_sequence;
  } else if (boot_id > state.boot_id) {
    accept = true;
  } else {
    accept = now_ms - state.last_accepted_local_ms > options_.max_clock_skew_ms;
  }
  if (!accept) return ReplayVerdict::Replayed;
  state = SenderState{boot_id, sequence, now_ms};
  return ReplayVerdict::Accepted;
}

}  // namespace queen::mesh
