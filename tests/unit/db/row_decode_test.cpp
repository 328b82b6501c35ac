// Rows are decoded by column name: a result that lacks a column its decoder
// expects is a DbError (SQLSTATE 42703, permanent) naming the column, raised
// when the decoder is made, before any row is read. No database: a default
// pqxx::result has no columns at all.
#include "db/row_decode.h"
#include "db/item_index.h"

#include <gtest/gtest.h>

#include "db/db_error.h"

namespace {

using queen::db::DbError;

template <typename Fn>
DbError error_of(Fn&& fn) {
  try {
    fn();
  } catch (const DbError& e) {
    return e;
  }
  ADD_FAILURE() << "no DbError";
  return DbError("none", "");
}

TEST(ColumnNumber, MissingColumnIsAPermanentErrorNamingIt) {
  const pqxx::result no_columns;
  const DbError e = error_of([&] { queen::db::column_number(no_columns, "lease_id"); });
  EXPECT_EQ(e.sqlstate(), "42703");
  EXPECT_FALSE(e.transient());
  EXPECT_EQ(e.client_message(), "the result has no column \"lease_id\"");
}

TEST(RowDecoders, EveryShapeChecksItsColumnsEvenWithoutRows) {
  const pqxx::result no_columns;
  EXPECT_THROW(queen::db::PushRowDecoder{no_columns}, DbError);
  EXPECT_THROW(queen::db::PoppedMessageDecoder{no_columns}, DbError);
  EXPECT_THROW(queen::db::AckRowDecoder{no_columns}, DbError);
  EXPECT_THROW(queen::db::LeaseExtensionDecoder{no_columns}, DbError);
  EXPECT_THROW(queen::db::DlqEntryDecoder{no_columns}, DbError);
  EXPECT_THROW(queen::db::KvEntryDecoder{no_columns}, DbError);
}

TEST(RowDecoders, TheFirstMissingColumnIsNamed) {
  const pqxx::result no_columns;
  EXPECT_EQ(error_of([&] { queen::db::decode_rows<queen::db::PushRowDecoder>(no_columns); }).client_message(),
            "the result has no column \"idx\"");
}

TEST(ScalarDecoding, MissingColumnIsAnErrorNotAnEmptyValue) {
  const pqxx::result no_columns;
  EXPECT_THROW(queen::db::first_value<bool>(no_columns, "deleted"), DbError);
  EXPECT_THROW(queen::db::column_values<std::int64_t>(no_columns, "id"), DbError);
}

}  // namespace

TEST(ItemIndexOf, AnIndexInsideTheItemsIsThePosition) {
  EXPECT_EQ(queen::db::item_index_of(0, 3, "push_messages"), 0u);
  EXPECT_EQ(queen::db::item_index_of(2, 3, "push_messages"), 2u);
}

TEST(ItemIndexOf, AnIndexOutsideTheItemsIsAPermanentInternalError) {
  for (const int idx : {-1, 3, 1000}) {
    try {
      queen::db::item_index_of(idx, 3, "ack_messages");
      ADD_FAILURE() << idx << " must be refused";
    } catch (const queen::db::DbError& e) {
      EXPECT_EQ(e.sqlstate(), "XX000");
      EXPECT_FALSE(e.transient());
      EXPECT_NE(std::string(e.what()).find("ack_messages"), std::string::npos) << e.what();
    }
  }
}
