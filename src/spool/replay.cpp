#include "spool/replay.h"

namespace queen::spool {

const char* to_string(ReplayOutcome::Kind kind) noexcept {
  switch (kind) {
    case ReplayOutcome::Kind::Ok: return "ok";
    case ReplayOutcome::Kind::Transient: return "transient";
    case ReplayOutcome::Kind::Permanent: return "permanent";
  }
  return "unknown";
}

}  // namespace queen::spool
