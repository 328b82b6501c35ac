#pragma once
// Transient-versus-permanent classification of database failures.
// The spool drain, the push path and the pop/ack error mapping all decide
// "retry later" versus "give up" with this one function.
#include <string_view>

namespace queen::db {

enum class FailureClass { Transient, Permanent };

// sqlstate: the five-character SQLSTATE of a server error, or empty when the
// failure carried none (the connection itself failed, a timeout on acquiring a
// connection, a broken socket): those are transient.
// Transient: no SQLSTATE, 40001 (serialization failure), 40P01 (deadlock),
// 25006 (read-only transaction: the connection reached a server that is not,
// or no longer, the primary), classes 08 (connection), 53 (insufficient
// resources), 57 (operator intervention, includes 57014 statement timeout),
// 58 (system error).
// Everything else a server says is permanent: the same bytes fail again.
FailureClass classify_sqlstate(std::string_view sqlstate) noexcept;

// True when the server behind the connection cannot take writes (25006): no
// later call on that connection, nor on any other connection opened to the
// same server, can succeed, so they are dropped and the next connection is
// opened anew (target_session_attrs=read-write finds the current primary).
bool reached_read_only_server(std::string_view sqlstate) noexcept;

inline bool is_transient(std::string_view sqlstate) noexcept {
  return classify_sqlstate(sqlstate) == FailureClass::Transient;
}

const char* to_string(FailureClass c) noexcept;

}  // namespace queen::db
