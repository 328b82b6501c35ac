// The gate of every database-backed read (ReadGate, docs/flow-control.md "Reads"):
// a Read slot held for the call, the read statement timeout in force for the
// calls made under it, a refusal naming the lane's variable, and a statement
// timeout told apart from every other failure. No database: the calls are
// lambdas.
#include "broker/admission.h"
#include "util/clock.h"

#include <gtest/gtest.h>

#include <string>

namespace queen::broker {
namespace {

using namespace std::chrono_literals;

flow::FlowLimits limits(int read_slots, int read_queue) {
  flow::FlowLimits l;
  l.total_slots = 8;
  for (const flow::Lane lane : flow::kWakeOrder) l[lane] = flow::LaneLimits{8, 8, 100ms};
  l[flow::Lane::Read] = flow::LaneLimits{read_slots, read_queue, 1500ms};
  return l;
}

int read_slots_in_use(const flow::Arbiter& arbiter) {
  return arbiter.snapshot()[flow::index_of(flow::Lane::Read)].in_use;
}

TEST(ReadGate, TheCallRunsUnderASlotAndTheReadTimeoutAndGivesBothBack) {
  flow::Arbiter arbiter(limits(2, 0), util::real_clock());
  const ReadGate reads(arbiter, 5000ms);
  EXPECT_EQ(db::StatementTimeoutScope::current(), 0ms);
  const int answer = reads.run([&] {
    EXPECT_EQ(read_slots_in_use(arbiter), 1);
    EXPECT_EQ(db::StatementTimeoutScope::current(), 5000ms);
    return 42;
  });
  EXPECT_EQ(answer, 42);
  EXPECT_EQ(read_slots_in_use(arbiter), 0);
  EXPECT_EQ(db::StatementTimeoutScope::current(), 0ms);
}

TEST(ReadGate, AReadPastTheLaneQueueIsRefusedAtOnceNamingTheVariable) {
  flow::Arbiter arbiter(limits(1, 0), util::real_clock());
  const ReadGate reads(arbiter, 5000ms);
  reads.run([&] {
    try {
      reads.run([] { return 0; });
      ADD_FAILURE() << "a second read found a slot the lane does not have";
    } catch (const LaneRefused& e) {
      EXPECT_EQ(e.kind(), ErrorKind::TooManyRequests);
      EXPECT_EQ(e.lane(), flow::Lane::Read);
      EXPECT_EQ(e.why(), flow::Refusal::QueueFull);
      EXPECT_EQ(e.retry_after_s(), 2);  // QUEEN_FLOW_READ_WAIT_MS 1500, rounded up
      EXPECT_NE(std::string(e.what()).find("read lane busy: "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("QUEEN_FLOW_READ_QUEUE"), std::string::npos) << e.what();
    }
    return 0;
  });
  // The live lanes are not the Read lane's: a push slot is there.
  EXPECT_TRUE(arbiter.acquire(flow::Lane::Push));
}

TEST(ReadGate, AStatementTimeoutBecomesReadTimedOutNamingTheVariable) {
  flow::Arbiter arbiter(limits(1, 0), util::real_clock());
  const ReadGate reads(arbiter, 250ms);
  try {
    reads.run([]() -> int {
      throw db::DbError("list_messages", "ERROR:  canceling statement due to statement timeout", "57014");
    });
    FAIL() << "no error";
  } catch (const ReadTimedOut& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_EQ(e.retry_after_s(), 0);
    EXPECT_NE(std::string(e.what()).find("250 ms (QUEEN_READ_STATEMENT_TIMEOUT_MS)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_slots_in_use(arbiter), 0);
}

TEST(ReadGate, OtherFailuresLeaveAsTheyCameForTheUseCasesMapping) {
  flow::Arbiter arbiter(limits(1, 0), util::real_clock());
  const ReadGate reads(arbiter, 250ms);
  try {
    reads.run([]() -> int { throw db::DbError("list_messages", "connection refused", ""); });
    FAIL() << "no error";
  } catch (const ReadTimedOut&) {
    FAIL() << "an outage is not a read timeout";
  } catch (const db::DbError& e) {
    EXPECT_EQ(e.sqlstate(), "");
  }
  // Without a bound of its own (QUEEN_READ_STATEMENT_TIMEOUT_MS=0) a 57014 is
  // DB_STATEMENT_TIMEOUT's (or an operator's cancel): not the reads' to name.
  const ReadGate unbounded(arbiter, 0ms);
  EXPECT_THROW(unbounded.run([]() -> int { throw db::DbError("x", "canceling statement", "57014"); }), db::DbError);
  EXPECT_EQ(read_slots_in_use(arbiter), 0);
}

}  // namespace
}  // namespace queen::broker
