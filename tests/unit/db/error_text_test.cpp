// The primary message of a database error is all a client may see
// (db/error_text.h); DbError keeps the full text for the log.
#include "db/error_text.h"

#include <gtest/gtest.h>

#include "db/db_error.h"

using queen::db::DbError;
using queen::db::primary_message;

TEST(PrimaryMessage, DropsTheSeverityAndTheContextOfAPlpgsqlRaise) {
  const std::string raised =
      "ERROR:  push item 0: queue is longer than 255 characters\n"
      "CONTEXT:  PL/pgSQL function queen.push_messages(jsonb,text) line 31 at RAISE\n";
  EXPECT_EQ(primary_message(raised), "push item 0: queue is longer than 255 characters");
}

TEST(PrimaryMessage, DropsTheEchoOfTheStatementParameters) {
  // log_parameter_max_length_on_error > 0 makes the server quote the request data back.
  const std::string echoed =
      "ERROR:  option leaseTime must be an integer, got \"abc\"\n"
      "CONTEXT:  PL/pgSQL function queen.configure_queue(text,text,text,jsonb) line 12 at RAISE\n"
      "unnamed portal parameter $4 = '{\"leaseTime\": \"abc\", \"secret\": \"do not echo\"}'\n";
  const std::string primary = primary_message(echoed);
  EXPECT_EQ(primary, "option leaseTime must be an integer, got \"abc\"");
  EXPECT_EQ(primary.find("portal"), std::string::npos);
  EXPECT_EQ(primary.find("do not echo"), std::string::npos);
}

TEST(PrimaryMessage, DropsDetailHintAndQueryLines) {
  EXPECT_EQ(primary_message("ERROR:  invalid input syntax for type json\n"
                            "DETAIL:  Token \"nope\" is invalid.\n"
                            "CONTEXT:  JSON data, line 1: nope\n"),
            "invalid input syntax for type json");
  EXPECT_EQ(primary_message("ERROR:  new row violates check constraint \"queues_name_length\"\n"
                            "DETAIL:  Failing row contains (0195..., aaaa...).\n"
                            "HINT:  whatever\n"),
            "new row violates check constraint \"queues_name_length\"");
}

TEST(PrimaryMessage, OtherSeveritiesAndLocalizedTagsAreStrippedToo) {
  EXPECT_EQ(primary_message("FATAL:  terminating connection due to administrator command\n"),
            "terminating connection due to administrator command");
  EXPECT_EQ(primary_message("PANIC:  something\n"), "something");
  EXPECT_EQ(primary_message("FEHLER:  ungültige Eingabesyntax\n"), "ungültige Eingabesyntax");
}

TEST(PrimaryMessage, TextWithoutATagIsKeptMinusItsOtherLines) {
  EXPECT_EQ(primary_message("connection refused"), "connection refused");
  EXPECT_EQ(primary_message("  timed out after 2000 ms waiting for a database connection (pool of 4)  \n"),
            "timed out after 2000 ms waiting for a database connection (pool of 4)");
  EXPECT_EQ(primary_message("server closed the connection unexpectedly\n\tThis probably means the server "
                            "terminated abnormally\n"),
            "server closed the connection unexpectedly");
  // A colon that is not a severity tag stays.
  EXPECT_EQ(primary_message("push item 3: deliverAt must be a timestamp"), "push item 3: deliverAt must be a timestamp");
  EXPECT_EQ(primary_message("Required lease x:  is not held"), "Required lease x:  is not held");
}

TEST(PrimaryMessage, IsNeverEmpty) {
  EXPECT_EQ(primary_message(""), "database error");
  EXPECT_EQ(primary_message("\n\n"), "database error");
  EXPECT_EQ(primary_message("ERROR:  \nCONTEXT:  x"), "database error");
}

TEST(DbError, LogTextIsCompleteClientTextIsThePrimaryMessage) {
  const DbError e("configure_queue",
                  "ERROR:  option retryLimit must be >= 0, got -1\nCONTEXT:  PL/pgSQL function "
                  "queen.configure_queue(text,text,text,jsonb) line 7 at RAISE\n",
                  "22023");
  EXPECT_EQ(e.client_message(), "option retryLimit must be >= 0, got -1");
  const std::string logged = e.what();
  EXPECT_EQ(logged.rfind("configure_queue: ERROR:  option retryLimit", 0), 0u);
  EXPECT_NE(logged.find("CONTEXT:  PL/pgSQL function"), std::string::npos);
  EXPECT_EQ(e.sqlstate(), "22023");
  EXPECT_FALSE(e.transient());
}

TEST(DbError, TheTwoArgumentFormCutsItsOwnTextTheSameWay) {
  const DbError e("ERROR:  kv key is longer than 255 characters (300)\nCONTEXT:  PL/pgSQL function "
                  "queen_internal.kv_check_key(text) line 6 at RAISE\nunnamed portal parameter $1 = 'kkkk'",
                  "22023");
  EXPECT_EQ(e.client_message(), "kv key is longer than 255 characters (300)");
  EXPECT_NE(std::string(e.what()).find("unnamed portal"), std::string::npos);
  const DbError down("connection refused", "");
  EXPECT_EQ(down.client_message(), "connection refused");
  EXPECT_TRUE(down.transient());
}
