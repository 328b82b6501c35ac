#pragma once
// Decoding of result rows, shared by every procedure call in src/db. Columns
// are found by name (the names the catalogue's statements give them), once
// per result: a decoder resolves its column numbers when it is made and then
// reads each row by number, so a pop of thousands of rows does no string
// lookup per row. A result that lacks an expected column is a DbError with
// SQLSTATE 42703 (undefined_column): the SQL and its decoder disagree.
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <pqxx/pqxx>

#include "db/catalogue.h"
#include "db/db_error.h"

namespace queen::db {

using ColumnNumber = pqxx::row::size_type;

inline constexpr const char* kUndefinedColumn = "42703";

// The number of the column named exactly `name` in `result` (a pqxx::result;
// the unit tests pass a result of their own with columns() and column_name()).
template <typename Result>
ColumnNumber column_number(const Result& result, const char* name) {
  for (ColumnNumber n = 0; n < result.columns(); ++n) {
    if (std::strcmp(result.column_name(n), name) == 0) return n;
  }
  throw DbError(std::string("the result has no column \"") + name + "\"", kUndefinedColumn);
}

std::optional<std::string> optional_text(const pqxx::field& f);

// The value of `column` in the first row; empty when there is no row or it is null.
template <typename T>
std::optional<T> first_value(const pqxx::result& result, const char* column) {
  const ColumnNumber n = column_number(result, column);
  if (result.empty() || result[0][n].is_null()) return std::nullopt;
  return result[0][n].as<T>();
}

// The value of `column` in every row, in order (a null is a conversion error).
template <typename T>
std::vector<T> column_values(const pqxx::result& result, const char* column) {
  const ColumnNumber n = column_number(result, column);
  std::vector<T> values;
  values.reserve(result.size());
  for (const auto& row : result) values.push_back(row[n].as<T>());
  return values;
}

namespace row_decode {

using catalogue::OnNull;

// The reads of one field are always inlined (a pop decodes every row through
// them): each field's member, column and null rule are then constants, and a
// row costs no more than a decoder written out by hand (measured: 3% fewer
// instructions than the hand-written pop decoder it replaced, 4% more without).

// A non-null value of type T (text is copied as it is, byte for byte).
template <typename T, typename Value>
[[gnu::always_inline]] inline T value_of(const Value& f) {
  if constexpr (std::is_same_v<T, std::string>) {
    return std::string(f.c_str(), f.size());
  } else {
    return f.template as<T>();
  }
}

// `out` from one field, null as its field declares (catalogue::OnNull).
template <typename T, typename Value>
[[gnu::always_inline]] inline void read_member(const Value& f, OnNull on_null, T& out) {
  if constexpr (std::is_same_v<T, Tenant>) {
    // a tenant column reads as text (a null as the default tenant's ''), then names its tenant
    std::string name;
    read_member(f, on_null, name);
    out = Tenant(std::move(name));
  } else if constexpr (catalogue::is_optional<T>::value) {
    if (f.is_null()) {
      out.reset();
    } else {
      out = value_of<typename catalogue::is_optional<T>::value_type>(f);
    }
  } else if (!f.is_null()) {
    out = value_of<T>(f);
  } else if (on_null == OnNull::Refused) {
    out = f.template as<T>();  // the conversion error of a null
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = on_null == OnNull::JsonNull ? std::string("null") : std::string();
  } else {
    out = T{};
  }
}

// resolve and read walk a shape's fields in order, nested shapes in place.
template <typename Row, typename Part, typename... Fields, typename Result>
void resolve(const catalogue::Nested<Row, Part, Fields...>& n, const Result& result, ColumnNumber* columns,
             std::size_t& i);
template <typename Row, typename Part, typename... Fields, typename ResultRow>
void read(const catalogue::Nested<Row, Part, Fields...>& n, const ResultRow& row, const ColumnNumber* columns,
          std::size_t& i, Row& out);

template <typename Row, typename T, typename Result>
void resolve(const catalogue::Field<Row, T>& f, const Result& result, ColumnNumber* columns, std::size_t& i) {
  columns[i++] = column_number(result, f.column.name);
}
template <typename... Fields, typename Result>
void resolve(const std::tuple<Fields...>& fields, const Result& result, ColumnNumber* columns, std::size_t& i) {
  std::apply([&](const auto&... f) { (resolve(f, result, columns, i), ...); }, fields);
}
template <typename Row, typename Part, typename... Fields, typename Result>
void resolve(const catalogue::Nested<Row, Part, Fields...>& n, const Result& result, ColumnNumber* columns,
             std::size_t& i) {
  resolve(n.fields, result, columns, i);
}

template <typename Row, typename T, typename ResultRow>
[[gnu::always_inline]] inline void read(const catalogue::Field<Row, T>& f, const ResultRow& row,
                                        const ColumnNumber* columns, std::size_t& i, Row& out) {
  read_member(row[columns[i++]], f.on_null, out.*f.member);
}
template <typename... Fields, typename ResultRow, typename Row>
void read(const std::tuple<Fields...>& fields, const ResultRow& row, const ColumnNumber* columns, std::size_t& i,
          Row& out) {
  std::apply([&](const auto&... f) { (read(f, row, columns, i, out), ...); }, fields);
}
template <typename Row, typename Part, typename... Fields, typename ResultRow>
void read(const catalogue::Nested<Row, Part, Fields...>& n, const ResultRow& row, const ColumnNumber* columns,
          std::size_t& i, Row& out) {
  read(n.fields, row, columns, i, out.*n.member);
}

}  // namespace row_decode

// The decoder of a table result of the catalogue (Shape: catalogue::PushRows,
// ...): made once per result, it finds the column of every field of the
// shape, in order, then fills each row's Shape::Row by column number.
template <typename Shape>
class RowDecoder {
 public:
  using Row = typename Shape::Row;

  template <typename Result>
  explicit RowDecoder(const Result& result) {
    std::size_t i = 0;
    row_decode::resolve(Shape::fields, result, columns_.data(), i);
  }

  template <typename ResultRow>
  Row operator()(const ResultRow& row) const {
    Row out{};
    std::size_t i = 0;
    row_decode::read(Shape::fields, row, columns_.data(), i, out);
    return out;
  }

 private:
  std::array<ColumnNumber, catalogue::column_count_v<Shape>> columns_{};
};

// Every row of `result` as Shape declares it (resolved once).
template <typename Shape>
std::vector<typename Shape::Row> decode_rows(const pqxx::result& result) {
  const RowDecoder<Shape> decode(result);
  std::vector<typename Shape::Row> rows;
  rows.reserve(result.size());
  for (const auto& row : result) rows.push_back(decode(row));
  return rows;
}

}  // namespace queen::db
