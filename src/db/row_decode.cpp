#include "db/row_decode.h"

namespace queen::db {

std::optional<std::string> optional_text(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return std::string(f.c_str(), f.size());
}

std::string text_or_empty(const pqxx::field& f) { return f.is_null() ? std::string() : std::string(f.c_str(), f.size()); }

PushRow push_row_of(const pqxx::row& row) {
  PushRow p;
  p.idx = row[0].as<int>();
  p.status = text_or_empty(row[1]);
  p.message_id = optional_text(row[2]);
  p.transaction_id = text_or_empty(row[3]);
  p.partition_id = optional_text(row[4]);
  p.queue_name = text_or_empty(row[5]);
  p.partition_name = text_or_empty(row[6]);
  p.error = optional_text(row[7]);
  return p;
}

}  // namespace queen::db
