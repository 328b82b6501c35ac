#pragma once
// The item a result row answers. Procedures that take a JSON array of items
// (push_messages, ack_messages) return one row per item with its 0-based
// `idx`; an index outside the array means the SQL and the broker disagree,
// which is a defect to surface, never a row to skip.
#include <cstddef>
#include <string>

#include "db/db_error.h"

namespace queen::db {

// SQLSTATE internal_error: permanent, so nobody retries the same call.
inline constexpr const char* kInternalError = "XX000";

inline std::size_t item_index_of(int idx, std::size_t item_count, const char* what) {
  if (idx < 0 || static_cast<std::size_t>(idx) >= item_count) {
    throw DbError(what, "result row index " + std::to_string(idx) + " outside the " + std::to_string(item_count) +
                            " items sent",
                  kInternalError);
  }
  return static_cast<std::size_t>(idx);
}

}  // namespace queen::db
