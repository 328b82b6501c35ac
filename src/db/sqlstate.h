#pragma once
// The one taxonomy of database failures (docs/operations-spool.md, "Which
// failures spool"). The push path, the spool drain, readiness and the
// pop/ack error mapping all decide with these functions.
#include <optional>
#include <string_view>

namespace queen::db {

enum class FailureClass {
  // The database cannot be reached through this broker's connections (the
  // connection broke, none could be opened or had from the pool, the server
  // is shutting down or not the primary): nothing works for any tenant, so
  // pushes go to the spool and readiness hears about it.
  ConnectionLost,
  // This request failed but the next one may not (statement or lock timeout,
  // serialization failure, deadlock, a server short of resources): it is
  // answered 503 or retried later; nothing else changes path.
  Transient,
  // The same bytes fail again (bad input, a constraint, a missing function ...).
  Permanent,
};

// sqlstate: the five-character SQLSTATE of a server error, or empty when the
// failure carried none (a broken socket, libpq could not connect, a timeout
// on acquiring a pooled connection).
// ConnectionLost: no SQLSTATE, class 08 (connection exception), 57P01-57P05
// (admin/crash shutdown, cannot connect now, database dropped, idle session
// timeout: the server closed the session), 25006 (read-only transaction: the
// connection reached a server that is not, or no longer, the primary).
// Transient: 40001 (serialization failure), 40P01 (deadlock), 55P03 (lock
// not available: lock_timeout), the rest of class 57 (57014 statement
// timeout or cancel, 57000), classes 53 (insufficient resources) and 58
// (system error).
// Everything else a server says is permanent.
// A failure to acquire a pooled connection is ConnectionLost whatever its
// SQLSTATE (DbError::connection_failure): callers of the pool decide that.
FailureClass classify_sqlstate(std::string_view sqlstate) noexcept;

// What the procedures raise when a statement would take a tenant past a
// storage quota (queen_internal.check_tenant_quota): a refusal of the
// tenant's request, not a failure of the database (Permanent by class).
inline constexpr std::string_view kStorageQuotaExceeded = "QQ429";

// Whether a permanent failure means the request itself is bad (answered
// 400): SQLSTATE class 22, data exception (invalid_parameter_value, invalid
// text representation, string too long ...), which the procedures raise for
// bad arguments.
bool is_bad_request(std::string_view sqlstate) noexcept;

// True when the server behind the connection cannot take writes (25006): no
// later call on that connection, nor on any other connection opened to the
// same server, can succeed, so they are dropped and the next connection is
// opened anew (target_session_attrs=read-write finds the current primary).
bool reached_read_only_server(std::string_view sqlstate) noexcept;

// Whether a failure of this class puts the broker's pushes on the spool
// (and marks the database unhealthy): ConnectionLost only. A request's own
// timeout never changes the path of another request.
bool enters_spool_mode(FailureClass c) noexcept;

// Whether a failure of this class is worth retrying later with the same
// bytes (ConnectionLost and Transient): the spool replay keeps such an event
// for the next cycle and never quarantines it.
bool retry_later(FailureClass c) noexcept;

const char* to_string(FailureClass c) noexcept;

// What a client is told when its request failed transiently (Transient
// class): the failure named with the variable that bounds it, e.g.
// "statement timeout (DB_STATEMENT_TIMEOUT): ...". Null for any other class.
const char* transient_failure_text(std::string_view sqlstate) noexcept;

// A database the broker can reach but cannot use as configured: the same
// configuration fails on every connection until an operator fixes it.
struct ConfigurationFault {
  const char* cause;     // e.g. "password authentication failed"
  const char* variable;  // what to fix, e.g. "PG_PASSWORD"
};

// The fault a connection-time or schema SQLSTATE names: 28P01 and 28000
// (authentication), 3D000 (no such database), 3F000 and 42883 (no queen
// schema, a procedure missing: migrations not deployed), 42501 (the role
// lacks a privilege on the schema). Empty for anything else.
std::optional<ConfigurationFault> configuration_fault(std::string_view sqlstate) noexcept;

// The SQLSTATE in a libpq error text rendered with PQERRORS_VERBOSE
// ("FATAL:  28P01:  password authentication failed ..."): the first
// five-character code following a "<severity>:  " prefix. Empty when none.
std::string_view sqlstate_in_verbose_message(std::string_view message) noexcept;

// Whether a libpq connection failure text carries an error the server sent
// (libpq renders those as "<severity>:  <message>", two spaces), as opposed
// to one libpq raised itself (refused, unreachable, timed out).
bool server_refused_connection(std::string_view message) noexcept;

}  // namespace queen::db
