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
// Maint), FIFO within the lane, except that Maint goes first when it is
// eligible and granting it would keep its share of the recent contested
// grants (grants made while Maint was eligible) at or below
// maint_share_permille: with every lane saturated, one grant in twenty goes to
// Maint, never more while the others wait, and never fewer.
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

  // How many contested grants the share is measured over.
  static constexpr std::size_t kShareWindow = 100;

 private:
  bool eligible(Lane lane) const;
  bool maint_owed() const;
  std::optional<Lane> next_lane() const;
  void note_contested(bool to_maint);
  void take_slot(Lane lane);

  const FlowLimits limits_;
  std::array<std::deque<Ticket>, kLaneCount> queues_;
  std::array<int, kLaneCount> in_use_{};
  int total_in_use_ = 0;
  Ticket next_ticket_ = 1;
  // The last kShareWindow contested grants: whether each went to Maint.
  std::array<bool, kShareWindow> window_{};
  std::size_t window_next_ = 0;
  std::size_t window_size_ = 0;
  std::size_t window_maint_ = 0;
};

}  // namespace queen::flow
