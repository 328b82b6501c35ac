// The one interpretation of a failed procedure call (interpret_failure):
// what the caller gets, whether the call is retried, whether the connection
// goes back to the pool, and whether readiness hears of it. No database.
#include "db/procedure_runner.h"

#include <stdexcept>

#include <pqxx/except>

#include <gtest/gtest.h>

namespace {

using queen::db::AttemptFacts;
using queen::db::DbError;
using queen::db::FailureVerdict;
using queen::db::interpret_failure;

AttemptFacts fresh_connection() { return AttemptFacts{false, true, true}; }
AttemptFacts idle_connection_first_try() { return AttemptFacts{true, true, true}; }

TEST(InterpretFailure, BrokenIdleConnectionIsRetriedOnceWithoutMarkingUnhealthy) {
  const FailureVerdict v = interpret_failure("pop_messages", pqxx::broken_connection("server closed the connection"),
                                             idle_connection_first_try());
  EXPECT_TRUE(v.retry);
  EXPECT_TRUE(v.discard_connection);
  EXPECT_FALSE(v.marks_unhealthy);
}

TEST(InterpretFailure, BrokenFreshConnectionIsATransientErrorThatMarksUnhealthy) {
  const FailureVerdict v =
      interpret_failure("kv_get", pqxx::broken_connection("server closed the connection"), fresh_connection());
  ASSERT_TRUE(v.error);
  EXPECT_FALSE(v.retry);
  EXPECT_TRUE(v.discard_connection);
  EXPECT_TRUE(v.marks_unhealthy);
  EXPECT_EQ(v.error->sqlstate(), "");
  EXPECT_TRUE(v.error->transient());
  EXPECT_EQ(std::string(v.error->what()), "kv_get: server closed the connection");
  EXPECT_EQ(v.error->client_message(), "server closed the connection");
}

TEST(InterpretFailure, BrokenConnectionOnTheRetryIsNotRetriedAgain) {
  AttemptFacts second_try = idle_connection_first_try();
  second_try.first_attempt = false;
  const FailureVerdict v = interpret_failure("push_messages", pqxx::broken_connection("gone"), second_try);
  ASSERT_TRUE(v.error);
  EXPECT_FALSE(v.retry);
  EXPECT_TRUE(v.marks_unhealthy);
}

TEST(InterpretFailure, PermanentServerErrorKeepsItsSqlstateAndTheConnection) {
  const FailureVerdict v =
      interpret_failure("kv_set", pqxx::sql_error("ERROR:  invalid key\nCONTEXT:  PL/pgSQL function\n", "q", "22023"),
                        fresh_connection());
  ASSERT_TRUE(v.error);
  EXPECT_FALSE(v.retry);
  EXPECT_FALSE(v.discard_connection);
  EXPECT_FALSE(v.marks_unhealthy);
  EXPECT_EQ(v.error->sqlstate(), "22023");
  EXPECT_FALSE(v.error->transient());
  EXPECT_EQ(std::string(v.error->what()).rfind("kv_set: ERROR:  invalid key", 0), 0u);
  EXPECT_EQ(v.error->client_message(), "invalid key");
}

TEST(InterpretFailure, ARequestsOwnTimeoutLeavesTheDatabaseHealthy) {
  // One tenant's statement or lock timeout says nothing about the others: no
  // spool mode, readiness unchanged, the connection kept.
  for (const char* sqlstate : {"57014", "55P03", "40001", "40P01"}) {
    const FailureVerdict v = interpret_failure(
        "push_messages", pqxx::sql_error("ERROR:  canceling statement due to statement timeout", "q", sqlstate),
        fresh_connection());
    ASSERT_TRUE(v.error) << sqlstate;
    EXPECT_TRUE(v.error->transient()) << sqlstate;
    EXPECT_EQ(v.error->failure_class(), queen::db::FailureClass::Transient) << sqlstate;
    EXPECT_FALSE(v.error->connection_lost()) << sqlstate;
    EXPECT_FALSE(v.marks_unhealthy) << sqlstate;
    EXPECT_FALSE(v.discard_connection) << sqlstate;
    EXPECT_FALSE(v.retry) << sqlstate;
  }
}

TEST(InterpretFailure, ConnectionClassServerErrorMarksUnhealthy) {
  const FailureVerdict v = interpret_failure(
      "claim_due_timers", pqxx::sql_error("FATAL:  the database system is shutting down", "q", "57P03"),
      fresh_connection());
  ASSERT_TRUE(v.error);
  EXPECT_TRUE(v.error->connection_lost());
  EXPECT_TRUE(v.marks_unhealthy);
  EXPECT_FALSE(v.retry);
}

TEST(DbError, AConnectionFailureIsConnectionLostWhateverItsSqlstate) {
  // A wrong password on connecting: the spool keeps its events (retry later),
  // readiness reads the SQLSTATE.
  const queen::db::DbError e =
      queen::db::DbError::connection_failure("push_messages", "FATAL:  password authentication failed", "28P01");
  EXPECT_TRUE(e.connection_lost());
  EXPECT_TRUE(e.transient());
  EXPECT_EQ(e.sqlstate(), "28P01");
  EXPECT_FALSE(queen::db::DbError("push_messages", "ERROR:  28P01 on a call", "28P01").transient());
}

TEST(InterpretFailure, ServerErrorThatClosedTheConnectionDiscardsIt) {
  AttemptFacts closed = fresh_connection();
  closed.connection_open = false;
  const FailureVerdict v = interpret_failure(
      "ack_messages", pqxx::sql_error("FATAL:  terminating connection due to administrator command", "q", "57P01"),
      closed);
  ASSERT_TRUE(v.error);
  EXPECT_TRUE(v.discard_connection);
  EXPECT_TRUE(v.marks_unhealthy);
  EXPECT_FALSE(v.retry);
}

TEST(InterpretFailure, ReadOnlyServerDropsThePoolsConnectionsAndRetriesOnce) {
  const pqxx::sql_error read_only("ERROR:  cannot execute INSERT in a read-only transaction", "q", "25006");
  const FailureVerdict first = interpret_failure("push_messages", read_only, idle_connection_first_try());
  ASSERT_TRUE(first.error);
  EXPECT_TRUE(first.error->transient());
  EXPECT_TRUE(first.discard_connection);
  EXPECT_TRUE(first.discard_idle_connections);
  EXPECT_TRUE(first.retry);
  EXPECT_FALSE(first.marks_unhealthy);

  AttemptFacts second_try = fresh_connection();
  second_try.first_attempt = false;
  const FailureVerdict second = interpret_failure("push_messages", read_only, second_try);
  ASSERT_TRUE(second.error);
  EXPECT_EQ(second.error->sqlstate(), "25006");
  EXPECT_TRUE(second.discard_connection);
  EXPECT_FALSE(second.retry);
  EXPECT_TRUE(second.marks_unhealthy);
}

TEST(InterpretFailure, OtherLibpqxxFailureDistrustsTheConnection) {
  const FailureVerdict v = interpret_failure("fire_timers", pqxx::in_doubt_error("lost connection during commit"),
                                             idle_connection_first_try());
  ASSERT_TRUE(v.error);
  EXPECT_TRUE(v.discard_connection);
  EXPECT_TRUE(v.marks_unhealthy);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.error->sqlstate(), "");
  EXPECT_EQ(std::string(v.error->what()), "fire_timers: lost connection during commit");
}

TEST(InterpretFailure, DecodingErrorIsNamedAfterTheOperationAndKeepsTheConnection) {
  const FailureVerdict v =
      interpret_failure("pop_messages", DbError("the result has no column \"lease_id\"", "42703"), fresh_connection());
  ASSERT_TRUE(v.error);
  EXPECT_EQ(v.error->sqlstate(), "42703");
  EXPECT_FALSE(v.error->transient());
  EXPECT_FALSE(v.discard_connection);
  EXPECT_FALSE(v.marks_unhealthy);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(std::string(v.error->what()), "pop_messages: the result has no column \"lease_id\"");
  EXPECT_EQ(v.error->client_message(), "the result has no column \"lease_id\"");
}

TEST(InterpretFailure, AnythingElseIsNotInterpreted) {
  const FailureVerdict v = interpret_failure("ping", std::runtime_error("out of memory"), fresh_connection());
  EXPECT_FALSE(v.error);
  EXPECT_FALSE(v.retry);
  EXPECT_FALSE(v.discard_connection);
  EXPECT_FALSE(v.marks_unhealthy);
}

}  // namespace
