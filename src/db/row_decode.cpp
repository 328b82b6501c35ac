#include "db/row_decode.h"

namespace queen::db {

std::optional<std::string> optional_text(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return row_decode::value_of<std::string>(f);
}

}  // namespace queen::db
