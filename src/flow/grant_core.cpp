#include "flow/grant_core.h"

#include <algorithm>

#include "util/assert.h"

namespace queen::flow {

GrantCore::GrantCore(const FlowLimits& limits) : limits_(limits) {
  QUEEN_ASSERT(limits_.total_slots >= 1, "the arbiter needs at least one slot");
}

bool GrantCore::eligible(Lane lane) const {
  const std::size_t i = index_of(lane);
  return !queues_[i].empty() && in_use_[i] < limits_.lanes[i].slots;
}

bool GrantCore::ShareWindow::owed(int share_permille) const {
  // (to_lane + 1) / (size + 1) <= share, counted over the window as it will
  // be after this grant (a full window drops its oldest entry).
  std::size_t hits = to_lane_;
  std::size_t size = size_;
  if (size == kShareWindow) {
    --size;
    if (grants_[next_]) --hits;
  }
  return (hits + 1) * 1000 <= static_cast<std::size_t>(share_permille) * (size + 1);
}

void GrantCore::ShareWindow::note(bool to_lane) {
  if (size_ == kShareWindow) {
    if (grants_[next_]) --to_lane_;
  } else {
    ++size_;
  }
  grants_[next_] = to_lane;
  if (to_lane) ++to_lane_;
  next_ = (next_ + 1) % kShareWindow;
}

std::optional<Lane> GrantCore::next_lane() const {
  if (total_in_use_ >= limits_.total_slots) return std::nullopt;
  for (const Lane lane : kSharedLanes) {
    if (eligible(lane) && windows_[index_of(lane)].owed(limits_.share_of(lane))) return lane;
  }
  for (const Lane lane : kWakeOrder) {
    if (eligible(lane)) return lane;
  }
  return std::nullopt;
}

void GrantCore::take_slot(Lane lane) {
  ++in_use_[index_of(lane)];
  ++total_in_use_;
}

GrantCore::Ask GrantCore::ask(Lane lane) {
  const std::size_t i = index_of(lane);
  // By the invariant, a free slot with an empty queue here means nobody
  // eligible waits anywhere: taking it jumps nobody.
  if (queues_[i].empty() && in_use_[i] < limits_.lanes[i].slots && total_in_use_ < limits_.total_slots) {
    take_slot(lane);
    return {AskResult::Granted, 0};
  }
  if (static_cast<int>(queues_[i].size()) >= limits_.lanes[i].max_waiters) return {AskResult::QueueFull, 0};
  const Ticket ticket = next_ticket_++;
  queues_[i].push_back(ticket);
  return {AskResult::Queued, ticket};
}

std::optional<GrantCore::Grant> GrantCore::release(Lane lane) {
  const std::size_t i = index_of(lane);
  QUEEN_ASSERT(in_use_[i] > 0 && total_in_use_ > 0, "a slot is released only by its holder");
  --in_use_[i];
  --total_in_use_;
  // One freed slot serves at most one waiter: only this lane's cap moved.
  const std::optional<Lane> next = next_lane();
  if (!next) return std::nullopt;
  for (const Lane lane : kSharedLanes) {
    if (eligible(lane)) windows_[index_of(lane)].note(*next == lane);
  }
  std::deque<Ticket>& queue = queues_[index_of(*next)];
  const Ticket ticket = queue.front();
  queue.pop_front();
  take_slot(*next);
  return Grant{*next, ticket};
}

bool GrantCore::withdraw(Lane lane, Ticket ticket) {
  std::deque<Ticket>& queue = queues_[index_of(lane)];
  const auto it = std::find(queue.begin(), queue.end(), ticket);
  if (it == queue.end()) return false;
  queue.erase(it);
  return true;
}

}  // namespace queen::flow
