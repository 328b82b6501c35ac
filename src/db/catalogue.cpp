#include "db/catalogue.h"

#include <iterator>

#include <nlohmann/json.hpp>
#include <pqxx/connection_base>

namespace queen::db::catalogue {
namespace {

// `pattern` with every `mark` replaced by `with`.
std::string substitute(const char* pattern, char mark, const std::string& with) {
  std::string out;
  for (const char* c = pattern; *c != '\0'; ++c) {
    if (*c == mark) {
      out += with;
    } else {
      out += *c;
    }
  }
  return out;
}

// "a,b" -> {"a", "b"}; "" -> {}.
std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < names.size()) {
    const std::size_t comma = names.find(',', from);
    const std::size_t to = comma == std::string::npos ? names.size() : comma;
    out.push_back(names.substr(from, to - from));
    from = to + 1;
  }
  return out;
}

std::string column_sql(const Column& c) {
  switch (c.read) {
    case Read::AsIs: return c.source;
    case Read::AsText: return std::string(c.source) + "::text AS " + c.name;
    case Read::EpochUs: return std::string("(extract(epoch from ") + c.source + ") * 1000000)::int8 AS " + c.name;
  }
  return c.source;
}

template <typename P>
Entry entry_of(const char* name) {
  using R = typename P::result;
  Entry e{name, P::function, P::statement, P::patterns, P::pg_types, R::rows, nullptr, nullptr, nullptr, 0};
  if constexpr (R::rows) {
    static_assert(fields_fit(R::fields), "a column's type, reading or null does not fit its member");
    static constexpr auto columns = columns_of(R::fields);
    e.columns = columns.data();
    e.column_count = columns.size();
  } else {
    e.select = R::select;
    e.returns = R::returns;
  }
  return e;
}

}  // namespace

const std::vector<Entry>& entries() {
#define QUEEN_CATALOGUE_ENTRY(Id, ...) entry_of<Id>(#Id),
  static const std::vector<Entry> all = {QUEEN_CATALOGUE(QUEEN_CATALOGUE_ENTRY)
                                             QUEEN_CATALOGUE_VIEWS(QUEEN_CATALOGUE_ENTRY)};
#undef QUEEN_CATALOGUE_ENTRY
  return all;
}

const std::vector<View>& views() {
#define QUEEN_CATALOGUE_VIEW(Id, fn, path, access, parameters, page_size, queue_in_path) \
  View{Id::function, Id::statement, path, ViewAccess::access, split_names(parameters), page_size, queue_in_path},
  static const std::vector<View> all = {QUEEN_CATALOGUE_VIEWS(QUEEN_CATALOGUE_VIEW)};
#undef QUEEN_CATALOGUE_VIEW
  return all;
}

std::string statement_sql(const Entry& e) {
  std::string call = std::string("queen.") + e.function + "(";
  for (int i = 0; e.patterns[i] != nullptr; ++i) {
    if (i > 0) call += ", ";
    call += substitute(e.patterns[i], '#', std::to_string(i + 1));
  }
  call += ")";
  if (!e.rows) return substitute(e.select, '@', call);
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < e.column_count; ++i) {
    if (i > 0) sql += ", ";
    sql += column_sql(e.columns[i]);
  }
  return sql + " FROM " + call;
}

const std::vector<const char*>& sql_admin_procedures() {
  static const std::vector<const char*> procedures = {
      "set_tenant_quota",
      "stream_usage_of",
      "tenant_usage_of",
  };
  return procedures;
}

namespace {

// "text, jsonb" (none: empty).
std::string argument_list(const Entry& e) {
  std::string out;
  for (int i = 0; e.pg_types[i] != nullptr; ++i) out += std::string(i > 0 ? ", " : "") + e.pg_types[i];
  return out;
}

// A scalar's type, or the columns a table result is read from.
std::string result_text(const Entry& e) {
  if (!e.rows) return e.returns;
  std::string out = "table(";
  for (std::size_t i = 0; i < e.column_count; ++i) {
    out += std::string(i > 0 ? ", " : "") + e.columns[i].source + " " + e.columns[i].pg_type;
  }
  return out + ")";
}

std::string route_text(const char* function) {
  for (const View& v : views()) {
    if (std::string(v.function) != function) continue;
    return std::string("`GET ") + v.path + "` (" + (v.access == ViewAccess::Operator ? "operator" : "read-only") +
           ")";
  }
  return "";
}

}  // namespace

std::string procedures_markdown() {
  std::string out =
      "| procedure | C++ (`call<...>`) | arguments | result | route (access) |\n"
      "|---|---|---|---|---|\n";
  for (const Entry& e : entries()) {
    out += std::string("| `queen.") + e.function + "` | `" + e.name + "` | " + argument_list(e) + " | " +
           result_text(e) + " | " + route_text(e.function) + " |\n";
  }
  return out;
}

std::string to_json() {
  nlohmann::json out;
  out["entries"] = nlohmann::json::array();
  for (const Entry& e : entries()) {
    nlohmann::json entry;
    entry["function"] = e.function;
    entry["statement"] = e.statement;
    entry["sql"] = statement_sql(e);
    entry["args"] = nlohmann::json::array();
    for (int i = 0; e.pg_types[i] != nullptr; ++i) entry["args"].push_back(e.pg_types[i]);
    entry["returns"] = e.returns != nullptr ? nlohmann::json(e.returns) : nlohmann::json();
    entry["columns"] = nlohmann::json::array();
    for (std::size_t i = 0; i < e.column_count; ++i) {
      entry["columns"].push_back({{"name", e.columns[i].source}, {"type", e.columns[i].pg_type}});
    }
    out["entries"].push_back(std::move(entry));
  }
  out["views"] = nlohmann::json::array();
  for (const View& v : views()) {
    out["views"].push_back({{"function", v.function}, {"path", v.path}, {"parameters", v.parameters},
                            {"operator", v.access == ViewAccess::Operator}});
  }
  out["admin_procedures"] = sql_admin_procedures();
  return out.dump(2);
}

}  // namespace queen::db::catalogue

namespace queen::db {

void register_statements(pqxx::connection_base& connection) {
  for (const catalogue::Entry& e : catalogue::entries()) connection.prepare(e.statement, catalogue::statement_sql(e));
  connection.prepare(kPingStatement, "SELECT 1 AS one");
}

}  // namespace queen::db
