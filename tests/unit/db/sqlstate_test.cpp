#include "db/sqlstate.h"

#include <gtest/gtest.h>

using queen::db::classify_sqlstate;
using queen::db::FailureClass;

TEST(ClassifySqlstate, NoSqlstateIsTheConnectionAndTransient) {
  EXPECT_EQ(classify_sqlstate(""), FailureClass::Transient);
}

TEST(ClassifySqlstate, SerializationAndDeadlockAreTransient) {
  EXPECT_EQ(classify_sqlstate("40001"), FailureClass::Transient);
  EXPECT_EQ(classify_sqlstate("40P01"), FailureClass::Transient);
}

TEST(ClassifySqlstate, ReadOnlyServerIsTransient) {
  // 25006: the connection reached a standby or a demoted primary; the current primary takes the retry.
  EXPECT_EQ(classify_sqlstate("25006"), FailureClass::Transient);
  EXPECT_TRUE(queen::db::reached_read_only_server("25006"));
  EXPECT_FALSE(queen::db::reached_read_only_server("25P02"));
  EXPECT_FALSE(queen::db::reached_read_only_server(""));
  EXPECT_EQ(classify_sqlstate("25001"), FailureClass::Permanent);
}

TEST(ClassifySqlstate, OtherClass40IsPermanent) {
  EXPECT_EQ(classify_sqlstate("40002"), FailureClass::Permanent);  // integrity constraint violation
  EXPECT_EQ(classify_sqlstate("40003"), FailureClass::Permanent);
}

TEST(ClassifySqlstate, TransientClasses) {
  for (const char* s : {"08000", "08003", "08006", "08001", "08004", "08P01", "53000", "53100", "53200",
                        "53300", "53400", "57000", "57014", "57P01", "57P02", "57P03", "57P04", "58000",
                        "58030", "58P01", "58P02"}) {
    EXPECT_EQ(classify_sqlstate(s), FailureClass::Transient) << s;
  }
}

TEST(ClassifySqlstate, EveryOtherServerErrorIsPermanent) {
  for (const char* s : {"23505", "23503", "22023", "22P02", "P0001", "P0002", "42P01", "42883", "XX000",
                        "0A000", "25P02", "54000", "55P03", "09000", "80000", "5800"}) {
    EXPECT_EQ(classify_sqlstate(s), FailureClass::Permanent) << s;
  }
}

TEST(ClassifySqlstate, ToString) {
  EXPECT_STREQ(queen::db::to_string(FailureClass::Transient), "transient");
  EXPECT_STREQ(queen::db::to_string(FailureClass::Permanent), "permanent");
}
