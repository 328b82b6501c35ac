#include "db/sqlstate.h"

#include <gtest/gtest.h>

#include <string>

using queen::db::classify_sqlstate;
using queen::db::FailureClass;

namespace {

struct Row {
  const char* sqlstate;
  FailureClass expected;
  const char* why;
};

// The taxonomy, one row per SQLSTATE that matters (db/sqlstate.h).
const Row kTable[] = {
    {"", FailureClass::ConnectionLost, "no SQLSTATE: the socket broke or libpq could not connect"},
    {"08000", FailureClass::ConnectionLost, "connection_exception"},
    {"08003", FailureClass::ConnectionLost, "connection_does_not_exist"},
    {"08006", FailureClass::ConnectionLost, "connection_failure"},
    {"08001", FailureClass::ConnectionLost, "sqlclient_unable_to_establish_sqlconnection"},
    {"08004", FailureClass::ConnectionLost, "sqlserver_rejected_establishment_of_sqlconnection"},
    {"08P01", FailureClass::ConnectionLost, "protocol_violation"},
    {"57P01", FailureClass::ConnectionLost, "admin_shutdown"},
    {"57P02", FailureClass::ConnectionLost, "crash_shutdown"},
    {"57P03", FailureClass::ConnectionLost, "cannot_connect_now"},
    {"57P04", FailureClass::ConnectionLost, "database_dropped"},
    {"57P05", FailureClass::ConnectionLost, "idle_session_timeout"},
    {"25006", FailureClass::ConnectionLost, "read_only_sql_transaction: not the primary"},
    {"57014", FailureClass::Transient, "query_canceled: statement timeout"},
    {"55P03", FailureClass::Transient, "lock_not_available: lock timeout"},
    {"40001", FailureClass::Transient, "serialization_failure"},
    {"40P01", FailureClass::Transient, "deadlock_detected"},
    {"57000", FailureClass::Transient, "operator_intervention"},
    {"57P06", FailureClass::Transient, "a later 57P code is not a shutdown"},
    {"53000", FailureClass::Transient, "insufficient_resources"},
    {"53100", FailureClass::Transient, "disk_full"},
    {"53200", FailureClass::Transient, "out_of_memory"},
    {"53300", FailureClass::Transient, "too_many_connections (once connected)"},
    {"58000", FailureClass::Transient, "system_error"},
    {"58030", FailureClass::Transient, "io_error"},
    {"23505", FailureClass::Permanent, "unique_violation"},
    {"23503", FailureClass::Permanent, "foreign_key_violation"},
    {"22023", FailureClass::Permanent, "invalid_parameter_value"},
    {"22P02", FailureClass::Permanent, "invalid_text_representation"},
    {"P0001", FailureClass::Permanent, "raise_exception"},
    {"42P01", FailureClass::Permanent, "undefined_table"},
    {"42883", FailureClass::Permanent, "undefined_function"},
    {"3F000", FailureClass::Permanent, "invalid_schema_name"},
    {"28P01", FailureClass::Permanent, "invalid_password (on a call; at connect the pool says ConnectionLost)"},
    {"3D000", FailureClass::Permanent, "invalid_catalog_name"},
    {"XX000", FailureClass::Permanent, "internal_error"},
    {"0A000", FailureClass::Permanent, "feature_not_supported"},
    {"25P02", FailureClass::Permanent, "in_failed_sql_transaction"},
    {"25001", FailureClass::Permanent, "active_sql_transaction"},
    {"54000", FailureClass::Permanent, "program_limit_exceeded: the same bytes fail again"},
    {"55000", FailureClass::Permanent, "object_not_in_prerequisite_state"},
    {"40002", FailureClass::Permanent, "transaction_integrity_constraint_violation"},
    {"40003", FailureClass::Permanent, "statement_completion_unknown"},
    {"5800", FailureClass::Permanent, "not a SQLSTATE (four characters)"},
    {"080000", FailureClass::Permanent, "not a SQLSTATE (six characters)"},
};

}  // namespace

TEST(ClassifySqlstate, Table) {
  for (const Row& row : kTable) {
    EXPECT_EQ(classify_sqlstate(row.sqlstate), row.expected)
        << "'" << row.sqlstate << "' (" << row.why << ") is " << queen::db::to_string(classify_sqlstate(row.sqlstate));
  }
}

TEST(ClassifySqlstate, OnlyAConnectionLossEntersSpoolMode) {
  EXPECT_TRUE(queen::db::enters_spool_mode(FailureClass::ConnectionLost));
  EXPECT_FALSE(queen::db::enters_spool_mode(FailureClass::Transient));
  EXPECT_FALSE(queen::db::enters_spool_mode(FailureClass::Permanent));
  // The reproduction of issue 20: one tenant's statement or lock timeout must not spool anyone.
  EXPECT_FALSE(queen::db::enters_spool_mode(classify_sqlstate("57014")));
  EXPECT_FALSE(queen::db::enters_spool_mode(classify_sqlstate("55P03")));
  EXPECT_TRUE(queen::db::enters_spool_mode(classify_sqlstate("")));
}

TEST(ClassifySqlstate, RetryLaterNeverGivesUpOnATimeout) {
  // The spool keeps (never quarantines) what is worth retrying.
  EXPECT_TRUE(queen::db::retry_later(FailureClass::ConnectionLost));
  EXPECT_TRUE(queen::db::retry_later(FailureClass::Transient));
  EXPECT_FALSE(queen::db::retry_later(FailureClass::Permanent));
  EXPECT_TRUE(queen::db::retry_later(classify_sqlstate("55P03")));
}

TEST(ClassifySqlstate, ReadOnlyServer) {
  EXPECT_TRUE(queen::db::reached_read_only_server("25006"));
  EXPECT_FALSE(queen::db::reached_read_only_server("25P02"));
  EXPECT_FALSE(queen::db::reached_read_only_server(""));
}

TEST(ClassifySqlstate, ToString) {
  EXPECT_STREQ(queen::db::to_string(FailureClass::ConnectionLost), "connection-lost");
  EXPECT_STREQ(queen::db::to_string(FailureClass::Transient), "transient");
  EXPECT_STREQ(queen::db::to_string(FailureClass::Permanent), "permanent");
}

TEST(TransientFailureText, NamesTheFailureAndItsVariable) {
  EXPECT_EQ(std::string(queen::db::transient_failure_text("57014")).rfind("statement timeout (DB_STATEMENT_TIMEOUT)", 0),
            0u);
  EXPECT_EQ(std::string(queen::db::transient_failure_text("55P03")).rfind("lock timeout (DB_LOCK_TIMEOUT)", 0), 0u);
  EXPECT_NE(std::string(queen::db::transient_failure_text("40P01")).find("deadlock"), std::string::npos);
  EXPECT_NE(std::string(queen::db::transient_failure_text("40001")).find("serialization"), std::string::npos);
  EXPECT_NE(queen::db::transient_failure_text("53100"), nullptr);
  EXPECT_EQ(queen::db::transient_failure_text(""), nullptr);       // connection lost: "database unavailable"
  EXPECT_EQ(queen::db::transient_failure_text("23505"), nullptr);  // permanent
}

TEST(ConfigurationFault, NamesTheVariableToFix) {
  const auto variable = [](const char* s) { return std::string(queen::db::configuration_fault(s)->variable); };
  EXPECT_EQ(variable("28P01"), "PG_PASSWORD");
  EXPECT_EQ(variable("28000"), "PG_USER");
  EXPECT_EQ(variable("3D000"), "PG_DB");
  EXPECT_EQ(variable("3F000"), "PG_DB");
  EXPECT_EQ(variable("42883"), "PG_DB");
  EXPECT_EQ(variable("42501"), "PG_USER");
  for (const char* s : {"", "08006", "57P03", "57014", "53300", "23505"}) {
    EXPECT_FALSE(queen::db::configuration_fault(s)) << s;
  }
}

TEST(VerboseMessage, FindsTheSqlstate) {
  using queen::db::sqlstate_in_verbose_message;
  EXPECT_EQ(sqlstate_in_verbose_message("connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  28P01: "
                                        "password authentication failed for user \"queen\"\n"),
            "28P01");
  EXPECT_EQ(sqlstate_in_verbose_message("FATAL:  3D000: database \"nope\" does not exist\nLOCATION:  x.c:1\n"),
            "3D000");
  // A localized severity keeps the layout.
  EXPECT_EQ(sqlstate_in_verbose_message("SCHWERWIEGEND:  28000: Rolle »x« existiert nicht"), "28000");
  EXPECT_EQ(sqlstate_in_verbose_message("connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n"
                                        "\tIs the server running on that host and accepting TCP/IP connections?"),
            "");
  EXPECT_EQ(sqlstate_in_verbose_message("FATAL:  password authentication failed"), "");  // not verbose
  EXPECT_EQ(sqlstate_in_verbose_message(""), "");
}

TEST(VerboseMessage, ServerRefusalVersusLibpqFailure) {
  EXPECT_TRUE(queen::db::server_refused_connection("... failed: FATAL:  password authentication failed for user"));
  EXPECT_FALSE(queen::db::server_refused_connection("... failed: Connection refused\n\tIs the server running"));
  EXPECT_FALSE(queen::db::server_refused_connection("timeout expired"));
}
