#include "spool/poison_policy.h"

#include <algorithm>

namespace queen::spool {

FailureJudgement judge_replay_failure(const ReplayOutcome& outcome, std::size_t events, unsigned earlier_failures,
                                      const PoisonPolicy& policy) {
  FailureJudgement judgement;
  const bool permanent = outcome.kind == ReplayOutcome::Kind::Permanent;
  if (!permanent && !outcome.database_answered) return judgement;  // an outage: never a reason to give up
  if (events > 1) {
    judgement.step = FailureStep::ReplayEventsAlone;
    return judgement;
  }
  judgement.attempt = earlier_failures + 1;
  judgement.max_attempts = std::max(1U, permanent ? policy.permanent_attempts : policy.suspect_attempts);
  judgement.step = judgement.attempt >= judgement.max_attempts ? FailureStep::Quarantine : FailureStep::RetryLater;
  return judgement;
}

}  // namespace queen::spool
