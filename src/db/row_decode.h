#pragma once
// Decoding of result rows, shared by every procedure call in src/db. Columns
// are found by name (the names statements.cpp gives them), once per result:
// a decoder resolves its column numbers when it is made and then reads each
// row by number, so a pop of thousands of rows does no string lookup per row.
// A result that lacks an expected column is a DbError with SQLSTATE 42703
// (undefined_column): the SQL and its decoder disagree.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "db/consumer_groups_db.h"
#include "db/kv_db.h"
#include "db/procedures.h"

namespace queen::db {

using ColumnNumber = pqxx::row::size_type;

inline constexpr const char* kUndefinedColumn = "42703";

// The number of the column named exactly `name` in `result`.
ColumnNumber column_number(const pqxx::result& result, const char* name);

std::optional<std::string> optional_text(const pqxx::field& f);
std::string text_or_empty(const pqxx::field& f);

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

// Every row of `result` through one Decoder (resolved once).
template <typename Decoder>
std::vector<typename Decoder::Row> decode_rows(const pqxx::result& result) {
  const Decoder decode(result);
  std::vector<typename Decoder::Row> rows;
  rows.reserve(result.size());
  for (const auto& row : result) rows.push_back(decode(row));
  return rows;
}

// One decoder per row shape.

// queen.push_messages: idx, status, message_id, transaction_id, partition_id,
// queue_name, partition_name, error.
class PushRowDecoder {
 public:
  using Row = PushRow;
  explicit PushRowDecoder(const pqxx::result& result);
  PushRow operator()(const pqxx::row& row) const;

 private:
  ColumnNumber idx_, status_, message_id_, transaction_id_, partition_id_, queue_name_, partition_name_, error_;
};

// queen.pop_messages.
class PoppedMessageDecoder {
 public:
  using Row = PoppedMessage;
  explicit PoppedMessageDecoder(const pqxx::result& result);
  PoppedMessage operator()(const pqxx::row& row) const;

 private:
  ColumnNumber lease_id_, queue_name_, partition_name_, partition_id_, message_id_, transaction_id_, trace_id_,
      payload_, producer_sub_, is_encrypted_, created_at_us_, retry_count_;
};

// queen.ack_messages.
class AckRowDecoder {
 public:
  using Row = AckRow;
  explicit AckRowDecoder(const pqxx::result& result);
  AckRow operator()(const pqxx::row& row) const;

 private:
  ColumnNumber idx_, transaction_id_, success_, error_, queue_name_, partition_name_, lease_released_, dlq_;
};

// queen.pop_many and queen.ack_many: the lone procedure's row plus request_idx.
template <typename Inner>
class CombinedRowDecoder {
 public:
  using Row = CombinedRow<typename Inner::Row>;
  explicit CombinedRowDecoder(const pqxx::result& result)
      : inner_(result), request_idx_(column_number(result, "request_idx")) {}
  Row operator()(const pqxx::row& row) const { return Row{row[request_idx_].as<int>(), inner_(row)}; }

 private:
  Inner inner_;
  ColumnNumber request_idx_;
};

// queen.extend_lease.
class LeaseExtensionDecoder {
 public:
  using Row = LeaseExtension;
  explicit LeaseExtensionDecoder(const pqxx::result& result);
  LeaseExtension operator()(const pqxx::row& row) const;

 private:
  ColumnNumber success_, expires_at_us_, error_;
};

// queen.list_dlq: one entry per row, and the total every row repeats.
class DlqEntryDecoder {
 public:
  using Row = DlqEntry;
  explicit DlqEntryDecoder(const pqxx::result& result);
  DlqEntry operator()(const pqxx::row& row) const;
  std::int64_t total(const pqxx::row& row) const;

 private:
  ColumnNumber message_id_, transaction_id_, partition_id_, queue_name_, partition_name_, consumer_group_,
      error_message_, retry_count_, payload_, payload_omitted_, is_encrypted_, producer_sub_, trace_id_, created_at_us_,
      failed_at_us_,
      total_;
};

// queen.tenant_quota_state.
class TenantQuotaStateDecoder {
 public:
  using Row = TenantQuotaState;
  explicit TenantQuotaStateDecoder(const pqxx::result& result);
  TenantQuotaState operator()(const pqxx::row& row) const;

 private:
  ColumnNumber max_pending_, push_rate_, push_burst_, pending_, max_dead_letters_, dead_letters_, counted_at_us_;
};

// queen.encrypted_queue_names.
class TenantQueueDecoder {
 public:
  using Row = TenantQueue;
  explicit TenantQueueDecoder(const pqxx::result& result);
  TenantQueue operator()(const pqxx::row& row) const;

 private:
  ColumnNumber tenant_, queue_name_;
};

// queen.seek_partition_to_end.
class PartitionSeekDecoder {
 public:
  using Row = PartitionSeek;
  explicit PartitionSeekDecoder(const pqxx::result& result);
  PartitionSeek operator()(const pqxx::row& row) const;

 private:
  ColumnNumber partition_found_, cursor_moved_to_us_;
};

// queen.kv_get.
class KvEntryDecoder {
 public:
  using Row = KvEntry;
  explicit KvEntryDecoder(const pqxx::result& result);
  KvEntry operator()(const pqxx::row& row) const;

 private:
  ColumnNumber value_json_, expires_at_us_;
};

}  // namespace queen::db
