#include "spool/replay.h"

#include "spool/clock.h"

namespace queen::spool {

const char* to_string(ReplayOutcome::Kind kind) noexcept {
  switch (kind) {
    case ReplayOutcome::Kind::Ok: return "ok";
    case ReplayOutcome::Kind::Transient: return "transient";
    case ReplayOutcome::Kind::Permanent: return "permanent";
  }
  return "unknown";
}

const Clock& steady_clock_instance() {
  static const SteadyClock clock;
  return clock;
}

}  // namespace queen::spool
