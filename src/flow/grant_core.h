#pragma once
// The grant decisions of the admission arbiter, without threads or clocks
// (the Arbiter wraps it in a mutex and condition variables).
//
// Invariant after every call: either every slot is taken, or no lane has a
// waiter it could serve (a lane is eligible when it has waiters and holds
// fewer slots than its cap). So a request that finds a free slot and an empty
// queue in its lane may take the slot at once without jumping anybody.
//
// A freed slot goes to the first eligible lane in kWakeOrder (Push, Pop, Ack,
// Read, Maint), FIFO within the lane, except that a lane with a guaranteed
// share (Maint, then Read: kSharedLanes) goes first when it is eligible and
// granting it would keep its share of its recent contested grants (grants made
// while it was eligible) at or below its share_permille: with every lane
// saturated, one grant in twenty goes to Maint and one in ten to Read, never
// more while the others wait, and never fewer. Read's cap bounds what its
// share can take, so reads never starve the live lanes either.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "flow/lane.h"

namespace queen::flow {

class GrantCore {
 public:
  using Ticket = std::uint64_t;

  explicit GrantCore(const FlowLimits& limits);

  enum class AskResult { Granted, Queued, QueueFull };
  struct Ask {
    AskResult result = AskResult::QueueFull;
    Ticket ticket = 0;  // when Queued: the place in the lane's queue
  };
  // A request for a slot of `lane`: granted now, queued (at the back of the
  // lane's FIFO), or refused because the lane's queue is full.
  Ask ask(Lane lane);

  struct Grant {
    Lane lane;
    Ticket ticket;
  };
  // Frees a slot held in `lane`; returns the queued request the slot went to, if any.
  std::optional<Grant> release(Lane lane);

  // Takes a queued ticket out of its lane (its wait ran out). False when it is
  // not queued (it was granted).
  bool withdraw(Lane lane, Ticket ticket);

  int in_use(Lane lane) const { return in_use_[index_of(lane)]; }
  int waiting(Lane lane) const { return static_cast<int>(queues_[index_of(lane)].size()); }
  int total_in_use() const { return total_in_use_; }
  const FlowLimits& limits() const { return limits_; }

  // How many contested grants a share is measured over.
  static constexpr std::size_t kShareWindow = 100;

 private:
  // The last kShareWindow grants made while one shared lane was eligible:
  // whether each went to that lane.
  class ShareWindow {
   public:
    // Granting the lane now keeps its share of the window (as it will be
    // after this grant) at or below `share_permille`.
    bool owed(int share_permille) const;
    void note(bool to_lane);

   private:
    std::array<bool, kShareWindow> grants_{};
    std::size_t next_ = 0;
    std::size_t size_ = 0;
    std::size_t to_lane_ = 0;
  };

  bool eligible(Lane lane) const;
  std::optional<Lane> next_lane() const;
  void take_slot(Lane lane);

  const FlowLimits limits_;
  std::array<std::deque<Ticket>, kLaneCount> queues_;
  std::array<int, kLaneCount> in_use_{};
  int total_in_use_ = 0;
  Ticket next_ticket_ = 1;
  std::array<ShareWindow, kLaneCount> windows_{};  // used by kSharedLanes only
};

}  // namespace queen::flow
