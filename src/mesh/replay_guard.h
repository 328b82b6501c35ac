#pragma once
// Replay protection for authenticated mesh frames.
//
// Every frame carries (sender id, boot id, sequence, timestamp). The guard keeps, per sender, the boot id it is
// following and the highest sequence accepted for it, and applies these rules in order:
//
//   1. stale:    |timestamp - now| > max_clock_skew_ms. Bounds how long a captured frame stays replayable at all,
//                including across a restart of the receiver, whose memory of counters starts empty.
//   2. new sender: accepted (and remembered, see capacity below).
//   3. same boot id: accepted only if sequence > highest accepted.
//   4. larger boot id: the sender restarted; accepted, and the guard follows the new boot id from now on.
//   5. smaller boot id: an older incarnation, rejected as a replay, UNLESS the boot id followed so far has been
//      silent (no accepted frame) for longer than max_clock_skew_ms. Then the sender has restarted with a clock
//      that stepped backwards; every frame of the old boot is stale by now, so switching cannot accept a replay.
//
// Capacity is bounded (max_senders). When full, senders silent longer than the skew window are forgotten first
// (their frames are all stale anyway, so forgetting them is safe); if none is, the new sender is refused.
//
// Not thread-safe: the mesh receive loop owns one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace queen::mesh {

struct ReplayGuardOptions {
  std::int64_t max_clock_skew_ms = 30'000;
  std::size_t max_senders = 64;
};

enum class ReplayVerdict {
  Accepted,
  Replayed,        // counter not above the highest accepted, or an older boot id
  Stale,           // timestamp outside the skew window
  TooManySenders,  // the sender table is full of live senders
};

const char* to_string(ReplayVerdict verdict) noexcept;

class ReplayGuard {
 public:
  explicit ReplayGuard(ReplayGuardOptions options = {});

  // Decides on one frame and, when Accepted, records it. now_ms is the receiver's wall clock (Unix ms).
  ReplayVerdict check_and_record(const std::string& sender_id, std::uint64_t boot_id, std::uint64_t sequence,
                                 std::int64_t timestamp_ms, std::int64_t now_ms);

  std::size_t sender_count() const { return senders_.size(); }

 private:
  struct SenderState {
    std::uint64_t boot_id = 0;
    std::uint64_t highest_sequence = 0;
    std::int64_t last_accepted_local_ms = 0;
  };

  bool make_room(std::int64_t now_ms);

  ReplayGuardOptions options_;
  std::unordered_map<std::string, SenderState> senders_;
};

}  // namespace queen::mesh
