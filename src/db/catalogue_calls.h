#pragma once
// The typed calls of the catalogue (db/catalogue.h), for the db module's
// implementations: each checks its arguments against the entry at compile
// time, runs the entry's prepared statement and decodes its result.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <pqxx/nontransaction>

#include "db/catalogue.h"
#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "tenant/tenant.h"

namespace queen::db::catalogue {

// An argument as libpqxx takes it: as it is, a tenant as its name.
template <typename A>
const A& statement_parameter(const A& arg) {
  return arg;
}
inline const std::string& statement_parameter(const Tenant& tenant) { return tenant.name(); }

// Runs P's prepared statement with `args` (checked against P's arguments).
template <typename P, typename... A>
pqxx::result exec(pqxx::nontransaction& tx, const A&... args) {
  static_assert(P::template accepts<A...>, "the arguments do not match the catalogue entry");
  return tx.exec_prepared(P::statement, statement_parameter(args)...);
}

// P's scalar result (empty: no row, or null).
template <typename P, typename... A>
std::optional<typename P::result::value_type> first(pqxx::nontransaction& tx, const A&... args) {
  static_assert(!P::result::rows, "a table result is read with rows<P>");
  return first_value<typename P::result::value_type>(exec<P>(tx, args...), "result");
}

// P's scalar result of every row (a set-returning procedure).
template <typename P, typename... A>
std::vector<typename P::result::value_type> each(pqxx::nontransaction& tx, const A&... args) {
  static_assert(!P::result::rows, "a table result is read with rows<P>");
  return column_values<typename P::result::value_type>(exec<P>(tx, args...), "result");
}

// P's table result, decoded.
template <typename P, typename... A>
auto rows(pqxx::nontransaction& tx, const A&... args) {
  static_assert(P::result::rows, "a scalar result is read with first<P> or each<P>");
  return decode_rows<typename P::result>(exec<P>(tx, args...));
}

// A scalar result as its `answer` (the shapes read otherwise are in
// catalogue_calls.cpp).
template <typename R>
typename R::answer read_answer(const R* /*shape*/, const pqxx::result& r) {
  return first_value<typename R::value_type>(r, "result");
}
bool read_answer(const Void* shape, const pqxx::result& r);
std::optional<ObjectWithPayload> read_answer(const ObjectAndPayload* shape, const pqxx::result& r);
TracesByName read_answer(const TracesAndPayloads* shape, const pqxx::result& r);

// P's result as Procedures::call answers it.
template <typename P>
Answer<P> answer(const pqxx::result& r) {
  using R = typename P::result;
  if constexpr (R::rows) {
    return decode_rows<R>(r);
  } else {
    return read_answer(static_cast<const R*>(nullptr), r);
  }
}

// One call of P with its Arguments, on a pooled connection through the one
// runner (Database::call).
template <typename P>
Answer<P> call_answer(ProcedureRunner& runner, const Arguments<P>& arguments) {
  return runner.run(P::function, [&](pqxx::nontransaction& tx) {
    return std::apply([&](const auto&... args) { return answer<P>(exec<P>(tx, args...)); }, arguments);
  });
}

// One call of P on a pooled connection, through the one runner.
template <typename P, typename... A>
auto call_first(ProcedureRunner& runner, const A&... args) {
  return runner.run(P::function, [&](pqxx::nontransaction& tx) { return first<P>(tx, args...); });
}
template <typename P, typename... A>
auto call_each(ProcedureRunner& runner, const A&... args) {
  return runner.run(P::function, [&](pqxx::nontransaction& tx) { return each<P>(tx, args...); });
}
template <typename P, typename... A>
auto call_rows(ProcedureRunner& runner, const A&... args) {
  return runner.run(P::function, [&](pqxx::nontransaction& tx) { return rows<P>(tx, args...); });
}

}  // namespace queen::db::catalogue
