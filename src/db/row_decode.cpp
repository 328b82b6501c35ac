#include "db/row_decode.h"

#include <cstring>

#include "db/db_error.h"

namespace queen::db {
namespace {

bool bool_or_false(const pqxx::field& f) { return !f.is_null() && f.as<bool>(); }

template <typename T>
T value_or(const pqxx::field& f, T fallback) {
  return f.is_null() ? fallback : f.as<T>();
}

template <typename T>
std::optional<T> optional_value(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<T>();
}

// A jsonb value as text; SQL null becomes the JSON null.
std::string json_or_null(const pqxx::field& f) { return f.is_null() ? std::string("null") : text_or_empty(f); }

}  // namespace

ColumnNumber column_number(const pqxx::result& result, const char* name) {
  for (ColumnNumber n = 0; n < result.columns(); ++n) {
    if (std::strcmp(result.column_name(n), name) == 0) return n;
  }
  throw DbError(std::string("the result has no column \"") + name + "\"", kUndefinedColumn);
}

std::optional<std::string> optional_text(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return std::string(f.c_str(), f.size());
}

std::string text_or_empty(const pqxx::field& f) {
  return f.is_null() ? std::string() : std::string(f.c_str(), f.size());
}

PushRowDecoder::PushRowDecoder(const pqxx::result& r)
    : idx_(column_number(r, "idx")),
      status_(column_number(r, "status")),
      message_id_(column_number(r, "message_id")),
      transaction_id_(column_number(r, "transaction_id")),
      partition_id_(column_number(r, "partition_id")),
      queue_name_(column_number(r, "queue_name")),
      partition_name_(column_number(r, "partition_name")),
      error_(column_number(r, "error")) {}

PushRow PushRowDecoder::operator()(const pqxx::row& row) const {
  PushRow p;
  p.idx = row[idx_].as<int>();
  p.status = text_or_empty(row[status_]);
  p.message_id = optional_text(row[message_id_]);
  p.transaction_id = text_or_empty(row[transaction_id_]);
  p.partition_id = optional_text(row[partition_id_]);
  p.queue_name = text_or_empty(row[queue_name_]);
  p.partition_name = text_or_empty(row[partition_name_]);
  p.error = optional_text(row[error_]);
  return p;
}

PoppedMessageDecoder::PoppedMessageDecoder(const pqxx::result& r)
    : lease_id_(column_number(r, "lease_id")),
      queue_name_(column_number(r, "queue_name")),
      partition_name_(column_number(r, "partition_name")),
      partition_id_(column_number(r, "partition_id")),
      message_id_(column_number(r, "message_id")),
      transaction_id_(column_number(r, "transaction_id")),
      trace_id_(column_number(r, "trace_id")),
      payload_(column_number(r, "payload")),
      producer_sub_(column_number(r, "producer_sub")),
      is_encrypted_(column_number(r, "is_encrypted")),
      created_at_us_(column_number(r, "created_at_us")),
      retry_count_(column_number(r, "retry_count")) {}

PoppedMessage PoppedMessageDecoder::operator()(const pqxx::row& row) const {
  PoppedMessage m;
  m.lease_id = optional_text(row[lease_id_]);
  m.queue_name = text_or_empty(row[queue_name_]);
  m.partition_name = text_or_empty(row[partition_name_]);
  m.partition_id = text_or_empty(row[partition_id_]);
  m.message_id = text_or_empty(row[message_id_]);
  m.transaction_id = text_or_empty(row[transaction_id_]);
  m.trace_id = optional_text(row[trace_id_]);
  m.payload_json = json_or_null(row[payload_]);
  m.producer_sub = optional_text(row[producer_sub_]);
  m.is_encrypted = bool_or_false(row[is_encrypted_]);
  m.created_at_us = value_or<std::int64_t>(row[created_at_us_], 0);
  m.retry_count = value_or<int>(row[retry_count_], 0);
  return m;
}

AckRowDecoder::AckRowDecoder(const pqxx::result& r)
    : idx_(column_number(r, "idx")),
      transaction_id_(column_number(r, "transaction_id")),
      success_(column_number(r, "success")),
      error_(column_number(r, "error")),
      queue_name_(column_number(r, "queue_name")),
      partition_name_(column_number(r, "partition_name")),
      lease_released_(column_number(r, "lease_released")),
      dlq_(column_number(r, "dlq")) {}

AckRow AckRowDecoder::operator()(const pqxx::row& row) const {
  AckRow a;
  a.idx = row[idx_].as<int>();
  a.transaction_id = text_or_empty(row[transaction_id_]);
  a.success = bool_or_false(row[success_]);
  a.error = optional_text(row[error_]);
  a.queue_name = optional_text(row[queue_name_]);
  a.partition_name = optional_text(row[partition_name_]);
  a.lease_released = bool_or_false(row[lease_released_]);
  a.dlq = bool_or_false(row[dlq_]);
  return a;
}

LeaseExtensionDecoder::LeaseExtensionDecoder(const pqxx::result& r)
    : success_(column_number(r, "success")),
      expires_at_us_(column_number(r, "expires_at_us")),
      error_(column_number(r, "error")) {}

LeaseExtension LeaseExtensionDecoder::operator()(const pqxx::row& row) const {
  LeaseExtension out;
  out.success = bool_or_false(row[success_]);
  if (!row[expires_at_us_].is_null()) out.expires_at_us = row[expires_at_us_].as<std::int64_t>();
  out.error = optional_text(row[error_]);
  return out;
}

DlqEntryDecoder::DlqEntryDecoder(const pqxx::result& r)
    : message_id_(column_number(r, "message_id")),
      transaction_id_(column_number(r, "transaction_id")),
      partition_id_(column_number(r, "partition_id")),
      queue_name_(column_number(r, "queue_name")),
      partition_name_(column_number(r, "partition_name")),
      consumer_group_(column_number(r, "consumer_group")),
      error_message_(column_number(r, "error_message")),
      retry_count_(column_number(r, "retry_count")),
      payload_(column_number(r, "payload")),
      payload_omitted_(column_number(r, "payload_omitted")),
      is_encrypted_(column_number(r, "is_encrypted")),
      producer_sub_(column_number(r, "producer_sub")),
      trace_id_(column_number(r, "trace_id")),
      created_at_us_(column_number(r, "created_at_us")),
      failed_at_us_(column_number(r, "failed_at_us")),
      total_(column_number(r, "total")) {}

DlqEntry DlqEntryDecoder::operator()(const pqxx::row& row) const {
  DlqEntry e;
  e.message_id = text_or_empty(row[message_id_]);
  e.transaction_id = text_or_empty(row[transaction_id_]);
  e.partition_id = text_or_empty(row[partition_id_]);
  e.queue_name = text_or_empty(row[queue_name_]);
  e.partition_name = text_or_empty(row[partition_name_]);
  e.consumer_group = text_or_empty(row[consumer_group_]);
  e.error_message = optional_text(row[error_message_]);
  e.retry_count = value_or<int>(row[retry_count_], 0);
  e.payload_json = json_or_null(row[payload_]);
  e.payload_omitted = bool_or_false(row[payload_omitted_]);
  e.is_encrypted = bool_or_false(row[is_encrypted_]);
  e.producer_sub = optional_text(row[producer_sub_]);
  e.trace_id = optional_text(row[trace_id_]);
  e.created_at_us = value_or<std::int64_t>(row[created_at_us_], 0);
  e.failed_at_us = value_or<std::int64_t>(row[failed_at_us_], 0);
  return e;
}

std::int64_t DlqEntryDecoder::total(const pqxx::row& row) const { return row[total_].as<std::int64_t>(); }

TenantQuotaStateDecoder::TenantQuotaStateDecoder(const pqxx::result& r)
    : max_pending_(column_number(r, "max_pending")),
      push_rate_(column_number(r, "push_rate")),
      push_burst_(column_number(r, "push_burst")),
      pending_(column_number(r, "pending")),
      max_dead_letters_(column_number(r, "max_dead_letters")),
      dead_letters_(column_number(r, "dead_letters")),
      counted_at_us_(column_number(r, "counted_at_us")) {}

TenantQuotaState TenantQuotaStateDecoder::operator()(const pqxx::row& row) const {
  TenantQuotaState s;
  s.max_pending = optional_value<std::int64_t>(row[max_pending_]);
  s.push_rate = optional_value<double>(row[push_rate_]);
  s.push_burst = optional_value<int>(row[push_burst_]);
  s.pending = value_or<std::int64_t>(row[pending_], 0);
  s.max_dead_letters = optional_value<std::int64_t>(row[max_dead_letters_]);
  s.dead_letters = value_or<std::int64_t>(row[dead_letters_], 0);
  s.counted_at_us = optional_value<std::int64_t>(row[counted_at_us_]);
  return s;
}

TenantQueueDecoder::TenantQueueDecoder(const pqxx::result& r)
    : tenant_(column_number(r, "tenant")), queue_name_(column_number(r, "queue_name")) {}

TenantQueue TenantQueueDecoder::operator()(const pqxx::row& row) const {
  return TenantQueue{Tenant(text_or_empty(row[tenant_])), row[queue_name_].as<std::string>()};
}

PartitionSeekDecoder::PartitionSeekDecoder(const pqxx::result& r)
    : partition_found_(column_number(r, "partition_found")),
      cursor_moved_to_us_(column_number(r, "cursor_moved_to_us")) {}

PartitionSeek PartitionSeekDecoder::operator()(const pqxx::row& row) const {
  return PartitionSeek{bool_or_false(row[partition_found_]), optional_value<std::int64_t>(row[cursor_moved_to_us_])};
}

KvEntryDecoder::KvEntryDecoder(const pqxx::result& r)
    : value_json_(column_number(r, "value_json")), expires_at_us_(column_number(r, "expires_at_us")) {}

KvEntry KvEntryDecoder::operator()(const pqxx::row& row) const {
  KvEntry e;
  e.value_json = json_or_null(row[value_json_]);
  if (!row[expires_at_us_].is_null()) e.expires_at_us = row[expires_at_us_].as<std::int64_t>();
  return e;
}

}  // namespace queen::db
