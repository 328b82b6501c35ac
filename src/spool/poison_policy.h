#pragma once
// What the drain does with a replay batch that failed (pure): keep it for an
// outage, replay its events one by one, count the failure of a lone event, or
// quarantine that event (docs/operations-spool.md, "Poison suspects").
#include <cstddef>

#include "spool/replay.h"

namespace queen::spool {

// Given by the drain (SpoolDrainOptions), so no bound is set here.
struct PoisonPolicy {
  // A lone event refused by the database (permanent) this many times is quarantined.
  unsigned permanent_attempts;
  // A lone event failing transiently this many times while the database
  // answered a ping after each failure is quarantined (FILE_BUFFER_POISON_ATTEMPTS).
  unsigned suspect_attempts;
};

enum class FailureStep {
  KeepForOutage,     // the database is down: keep everything, count nothing
  ReplayEventsAlone, // a batch of several events failed: replay each alone from now on
  RetryLater,        // a lone event failed, below its bound: retry next cycle
  Quarantine,        // a lone event reached its bound: move it to failed/
};

struct FailureJudgement {
  FailureStep step = FailureStep::KeepForOutage;
  unsigned attempt = 0;       // failures of the lone event so far, this one included
  unsigned max_attempts = 0;  // its bound for this kind of failure
};

// `events`: how many events the failed call carried; `earlier_failures`: how
// often that lone event failed (while the database answered) before.
FailureJudgement judge_replay_failure(const ReplayOutcome& outcome, std::size_t events, unsigned earlier_failures,
                                      const PoisonPolicy& policy);

}  // namespace queen::spool
