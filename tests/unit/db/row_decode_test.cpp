// Rows are decoded by column name, as each table shape of the catalogue
// declares its fields (db/catalogue.h): a result that lacks a column its shape
// expects is a DbError (SQLSTATE 42703, permanent) naming the column, raised
// when the decoder is made, before any row is read; a null becomes what its
// field declares (OnNull). No database: a default pqxx::result has no columns
// at all, and rows with values are a result of the test's own with the
// interface RowDecoder reads (columns by name, fields converted as libpqxx
// converts them).
#include "db/row_decode.h"
#include "db/item_index.h"

#include <map>

#include <gtest/gtest.h>

#include "db/db_error.h"

namespace {

using queen::db::DbError;
using queen::db::RowDecoder;
namespace catalogue = queen::db::catalogue;

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

// One value of a result row: null, or its text as PostgreSQL sends it.
class TestValue {
 public:
  explicit TestValue(std::optional<std::string> text) : text_(std::move(text)) {}
  bool is_null() const { return !text_; }
  const char* c_str() const { return text_ ? text_->c_str() : ""; }
  std::size_t size() const { return text_ ? text_->size() : 0; }
  // As pqxx::field::as: a null is a conversion error.
  template <typename T>
  T as() const {
    T value{};
    if (!text_) {
      value = pqxx::string_traits<T>::null();
    } else {
      pqxx::string_traits<T>::from_string(text_->c_str(), value);
    }
    return value;
  }

 private:
  std::optional<std::string> text_;
};

// A result of one row whose columns come in the reverse of the shape's order
// (the decoder finds them by name): every column null but those in `values`.
template <typename Shape>
class TestResult {
 public:
  explicit TestResult(const std::map<std::string, std::string>& values) {
    static constexpr auto columns = catalogue::columns_of(Shape::fields);
    for (auto c = columns.rbegin(); c != columns.rend(); ++c) {
      names_.emplace_back(c->name);
      const auto value = values.find(c->name);
      row_.emplace_back(value == values.end() ? std::nullopt : std::optional<std::string>(value->second));
    }
  }
  queen::db::ColumnNumber columns() const { return static_cast<queen::db::ColumnNumber>(names_.size()); }
  const char* column_name(queen::db::ColumnNumber n) const { return names_.at(n).c_str(); }
  const std::vector<TestValue>& row() const { return row_; }

 private:
  std::vector<std::string> names_;
  std::vector<TestValue> row_;
};

// The row `values` (the rest null) as Shape decodes it.
template <typename Shape>
typename Shape::Row decoded(const std::map<std::string, std::string>& values) {
  const TestResult<Shape> result(values);
  const RowDecoder<Shape> decode(result);
  return decode(result.row());
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
  EXPECT_THROW(RowDecoder<catalogue::PushRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::PoppedRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::AckRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::CombinedPoppedRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::CombinedAckRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::LeaseRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::DlqRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::QuotaRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::TenantQueueRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::PartitionSeekRows>{no_columns}, DbError);
  EXPECT_THROW(RowDecoder<catalogue::KvRows>{no_columns}, DbError);
}

TEST(RowDecoders, TheFirstMissingColumnIsNamed) {
  const pqxx::result no_columns;
  EXPECT_EQ(error_of([&] { queen::db::decode_rows<catalogue::PushRows>(no_columns); }).client_message(),
            "the result has no column \"idx\"");
  EXPECT_EQ(error_of([&] { RowDecoder<catalogue::CombinedAckRows>{no_columns}; }).client_message(),
            "the result has no column \"request_idx\"");
}

TEST(RowDecoders, AColumnIsFoundByTheNameTheStatementGivesIt) {
  // created_at is read as created_at_us (Read::EpochUs), payload as text.
  const auto m = decoded<catalogue::PoppedRows>({{"created_at_us", "1700000000123456"},
                                                 {"payload", R"({"a":1})"},
                                                 {"retry_count", "2"},
                                                 {"is_encrypted", "t"},
                                                 {"lease_id", "0190a0a0-0000-7000-8000-000000000001"},
                                                 {"queue_name", "orders"}});
  EXPECT_EQ(m.created_at_us, 1700000000123456);
  EXPECT_EQ(m.payload_json, R"({"a":1})");
  EXPECT_EQ(m.retry_count, 2);
  EXPECT_TRUE(m.is_encrypted);
  EXPECT_EQ(m.lease_id, "0190a0a0-0000-7000-8000-000000000001");
  EXPECT_EQ(m.queue_name, "orders");
}

TEST(RowDecoders, EmptyNullsBecomeTheMembersEmptyValue) {
  // OnNull::Empty: nullopt, "", false, 0.
  const auto m = decoded<catalogue::PoppedRows>({});
  EXPECT_EQ(m.lease_id, std::nullopt);
  EXPECT_EQ(m.queue_name, "");
  EXPECT_EQ(m.partition_id, "");
  EXPECT_EQ(m.message_id, "");
  EXPECT_EQ(m.trace_id, std::nullopt);
  EXPECT_EQ(m.producer_sub, std::nullopt);
  EXPECT_FALSE(m.is_encrypted);
  EXPECT_EQ(m.created_at_us, 0);
  EXPECT_EQ(m.retry_count, 0);

  const auto q = decoded<catalogue::QuotaRows>({});
  EXPECT_EQ(q.max_pending, std::nullopt);
  EXPECT_EQ(q.push_rate, std::nullopt);
  EXPECT_EQ(q.push_burst, std::nullopt);
  EXPECT_EQ(q.max_dead_letters, std::nullopt);
  EXPECT_EQ(q.pending, 0);
  EXPECT_EQ(q.dead_letters, 0);
  EXPECT_EQ(q.counted_at_us, std::nullopt);

  const auto lease = decoded<catalogue::LeaseRows>({});
  EXPECT_FALSE(lease.success);
  EXPECT_EQ(lease.expires_at_us, std::nullopt);
  EXPECT_EQ(lease.error, std::nullopt);

  const auto seek = decoded<catalogue::PartitionSeekRows>({});
  EXPECT_FALSE(seek.partition_found);
  EXPECT_EQ(seek.cursor_moved_to_us, std::nullopt);
}

TEST(RowDecoders, OptionalsHoldTheirValues) {
  const auto q = decoded<catalogue::QuotaRows>({{"max_pending", "5000000000"},
                                                {"push_rate", "2.5"},
                                                {"push_burst", "7"},
                                                {"pending", "3"},
                                                {"counted_at_us", "-1"}});
  EXPECT_EQ(q.max_pending, 5000000000);
  EXPECT_EQ(q.push_rate, 2.5);
  EXPECT_EQ(q.push_burst, 7);
  EXPECT_EQ(q.pending, 3);
  EXPECT_EQ(q.counted_at_us, -1);
  EXPECT_EQ(decoded<catalogue::LeaseRows>({{"expires_at_us", "42"}}).expires_at_us, 42);
  EXPECT_EQ(decoded<catalogue::KvRows>({{"expires_at_us", "43"}}).expires_at_us, 43);
}

TEST(RowDecoders, AJsonbNullIsTheJsonNull) {
  EXPECT_EQ(decoded<catalogue::PoppedRows>({}).payload_json, "null");
  EXPECT_EQ(decoded<catalogue::KvRows>({}).value_json, "null");
  EXPECT_EQ(decoded<catalogue::DlqRows>({{"total", "1"}}).entry.payload_json, "null");
  EXPECT_EQ(decoded<catalogue::KvRows>({{"value_json", "[1]"}}).value_json, "[1]");
}

TEST(RowDecoders, ARefusedNullIsAConversionError) {
  EXPECT_THROW(decoded<catalogue::PushRows>({}), pqxx::conversion_error);
  EXPECT_THROW(decoded<catalogue::AckRows>({}), pqxx::conversion_error);
  EXPECT_THROW(decoded<catalogue::CombinedPoppedRows>({}), pqxx::conversion_error);
  EXPECT_THROW(decoded<catalogue::CombinedAckRows>({{"idx", "0"}}), pqxx::conversion_error);
  EXPECT_THROW(decoded<catalogue::DlqRows>({}), pqxx::conversion_error);
  EXPECT_THROW(decoded<catalogue::TenantQueueRows>({{"tenant", "acme"}}), pqxx::conversion_error);
}

TEST(RowDecoders, PushRowsKeepTheirNulls) {
  const auto p = decoded<catalogue::PushRows>({{"idx", "3"}});
  EXPECT_EQ(p.idx, 3);
  EXPECT_EQ(p.status, "");
  EXPECT_EQ(p.message_id, std::nullopt);
  EXPECT_EQ(p.transaction_id, "");
  EXPECT_EQ(p.partition_id, std::nullopt);
  EXPECT_EQ(p.queue_name, "");
  EXPECT_EQ(p.partition_name, "");
  EXPECT_EQ(p.error, std::nullopt);
}

TEST(RowDecoders, AckRowsKeepTheirNulls) {
  const auto a = decoded<catalogue::AckRows>({{"idx", "1"}, {"success", "true"}, {"dlq", "f"}});
  EXPECT_EQ(a.idx, 1);
  EXPECT_EQ(a.transaction_id, "");
  EXPECT_TRUE(a.success);
  EXPECT_EQ(a.error, std::nullopt);
  EXPECT_EQ(a.queue_name, std::nullopt);
  EXPECT_EQ(a.partition_name, std::nullopt);
  EXPECT_FALSE(a.lease_released);
  EXPECT_FALSE(a.dlq);
}

TEST(RowDecoders, ACombinedRowIsTheRequestAndTheLoneProceduresRow) {
  const auto c = decoded<catalogue::CombinedPoppedRows>({{"request_idx", "4"}, {"message_id", "m"}});
  EXPECT_EQ(c.request_idx, 4);
  EXPECT_EQ(c.row.message_id, "m");
  EXPECT_EQ(c.row.payload_json, "null");
  const auto a = decoded<catalogue::CombinedAckRows>({{"request_idx", "2"}, {"idx", "5"}, {"error", "gone"}});
  EXPECT_EQ(a.request_idx, 2);
  EXPECT_EQ(a.row.idx, 5);
  EXPECT_EQ(a.row.error, "gone");
}

TEST(RowDecoders, ADeadLetterRowIsItsEntryAndTheTotal) {
  const auto d = decoded<catalogue::DlqRows>(
      {{"total", "12"}, {"message_id", "m"}, {"failed_at_us", "99"}, {"payload_omitted", "t"}});
  EXPECT_EQ(d.total, 12);
  EXPECT_EQ(d.entry.message_id, "m");
  EXPECT_EQ(d.entry.transaction_id, "");
  EXPECT_EQ(d.entry.partition_id, "");
  EXPECT_EQ(d.entry.consumer_group, "");
  EXPECT_EQ(d.entry.error_message, std::nullopt);
  EXPECT_EQ(d.entry.retry_count, 0);
  EXPECT_TRUE(d.entry.payload_omitted);
  EXPECT_FALSE(d.entry.is_encrypted);
  EXPECT_EQ(d.entry.producer_sub, std::nullopt);
  EXPECT_EQ(d.entry.trace_id, std::nullopt);
  EXPECT_EQ(d.entry.created_at_us, 0);
  EXPECT_EQ(d.entry.failed_at_us, 99);
}

TEST(RowDecoders, ATenantQueueNeedsItsQueueNotItsTenant) {
  const auto t = decoded<catalogue::TenantQueueRows>({{"queue_name", "q"}});
  EXPECT_EQ(t.tenant, queen::Tenant::default_tenant());
  EXPECT_EQ(t.queue, "q");
}

TEST(RowDecoders, ATenantColumnBecomesThatTenant) {
  const auto t = decoded<catalogue::TenantQueueRows>({{"tenant", "acme"}, {"queue_name", "q"}});
  EXPECT_EQ(t.tenant, queen::Tenant("acme"));
}

TEST(RowDecoders, TextIsCopiedByteForByte) {
  const std::string with_nul("a\0b", 3);
  const TestResult<catalogue::PushRows> result({{"idx", "0"}, {"status", with_nul}, {"error", with_nul}});
  const auto p = RowDecoder<catalogue::PushRows>(result)(result.row());
  EXPECT_EQ(p.status, with_nul);
  EXPECT_EQ(p.error, with_nul);
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
