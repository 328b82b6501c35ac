#include "db/catalogue_calls.h"

#include <pqxx/pqxx>

namespace queen::db::catalogue {
namespace {

// Columns fields_json, payload (JSON text, null = JSON null) and is_encrypted.
ObjectWithPayload object_with_payload(const pqxx::result& r, const pqxx::row& row) {
  ObjectWithPayload out;
  out.fields_json = row[column_number(r, "fields_json")].as<std::string>();
  out.payload_json = optional_text(row[column_number(r, "payload")]).value_or("null");
  const pqxx::field encrypted = row[column_number(r, "is_encrypted")];
  out.is_encrypted = !encrypted.is_null() && encrypted.as<bool>();
  return out;
}

}  // namespace

bool read_answer(const Void* /*shape*/, const pqxx::result& r) { return !r.empty(); }

std::optional<ObjectWithPayload> read_answer(const ObjectAndPayload* /*shape*/, const pqxx::result& r) {
  if (r.empty()) return std::nullopt;
  return object_with_payload(r, r[0]);
}

TracesByName read_answer(const TracesAndPayloads* /*shape*/, const pqxx::result& r) {
  const ColumnNumber envelope = column_number(r, "envelope_json");
  const ColumnNumber fields = column_number(r, "fields_json");
  TracesByName out;
  out.traces.reserve(r.size());
  for (const auto& row : r) {
    out.envelope_json = row[envelope].as<std::string>();
    if (row[fields].is_null()) continue;  // the one row of an empty page
    out.traces.push_back(object_with_payload(r, row));
  }
  return out;
}

}  // namespace queen::db::catalogue
