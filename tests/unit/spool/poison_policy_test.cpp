#include "spool/poison_policy.h"

#include <gtest/gtest.h>

namespace queen::spool {
namespace {

const PoisonPolicy kPolicy{5, 3};

TEST(PoisonPolicy, AnOutageIsNeverCountedNorSplitWhateverCameBefore) {
  const ReplayOutcome down = ReplayOutcome::transient("connection refused");
  for (const unsigned earlier : {0U, 4U, 1000U}) {
    for (const std::size_t events : {std::size_t{1}, std::size_t{100}}) {
      const FailureJudgement j = judge_replay_failure(down, events, earlier, kPolicy);
      EXPECT_EQ(j.step, FailureStep::KeepForOutage) << earlier << " " << events;
    }
  }
}

TEST(PoisonPolicy, ABatchOfSeveralEventsIsSplitBeforeAnythingIsCounted) {
  for (const ReplayOutcome& failure :
       {ReplayOutcome::permanent("22P05"), ReplayOutcome::transient_while_answering("dropped")}) {
    const FailureJudgement j = judge_replay_failure(failure, 2, 0, kPolicy);
    EXPECT_EQ(j.step, FailureStep::ReplayEventsAlone);
    EXPECT_EQ(j.attempt, 0U);
  }
}

TEST(PoisonPolicy, ALoneRefusedEventIsQuarantinedAtItsPermanentBound) {
  const ReplayOutcome refused = ReplayOutcome::permanent("22P05");
  for (unsigned earlier = 0; earlier < 4; ++earlier) {
    const FailureJudgement j = judge_replay_failure(refused, 1, earlier, kPolicy);
    EXPECT_EQ(j.step, FailureStep::RetryLater) << earlier;
    EXPECT_EQ(j.attempt, earlier + 1);
    EXPECT_EQ(j.max_attempts, 5U);
  }
  EXPECT_EQ(judge_replay_failure(refused, 1, 4, kPolicy).step, FailureStep::Quarantine);
}

TEST(PoisonPolicy, ALoneSuspectEventIsQuarantinedAtThePoisonBound) {
  const ReplayOutcome dropped = ReplayOutcome::transient_while_answering("server closed the connection");
  EXPECT_EQ(judge_replay_failure(dropped, 1, 0, kPolicy).step, FailureStep::RetryLater);
  EXPECT_EQ(judge_replay_failure(dropped, 1, 1, kPolicy).step, FailureStep::RetryLater);
  const FailureJudgement last = judge_replay_failure(dropped, 1, 2, kPolicy);
  EXPECT_EQ(last.step, FailureStep::Quarantine);
  EXPECT_EQ(last.attempt, 3U);
  EXPECT_EQ(last.max_attempts, 3U);
  // A bound of 0 means 1: the first failure alone quarantines.
  EXPECT_EQ(judge_replay_failure(dropped, 1, 0, PoisonPolicy{0, 0}).step, FailureStep::Quarantine);
}

}  // namespace
}  // namespace queen::spool
