#pragma once
// Decoding of result rows shared by every procedure call in src/db.
#include <optional>
#include <string>

#include <pqxx/pqxx>

#include "db/procedures.h"

namespace queen::db {

std::optional<std::string> optional_text(const pqxx::field& f);
std::string text_or_empty(const pqxx::field& f);

// One row of queen.push_messages / queen.schedule_messages, which share their
// column list: idx, status, message_id, transaction_id, partition_id,
// queue_name, partition_name, error.
PushRow push_row_of(const pqxx::row& row);

}  // namespace queen::db
