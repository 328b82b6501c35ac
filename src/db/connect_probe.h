#pragma once
// Why connecting fails, with its SQLSTATE (internal to src/db).
//
// libpq reports a refused connection as text only ("FATAL:  password
// authentication failed ..."), and libpqxx passes that text on: the SQLSTATE
// the server sent is lost. A probe opens one more connection with
// PQERRORS_VERBOSE set before the server answers, so the text carries the
// SQLSTATE whatever language the server speaks. Used at boot and when a pool
// connection was refused by the server (not when it was unreachable: that
// would wait out connect_timeout twice).
#include <chrono>
#include <string>

namespace queen::db {

struct ConnectProbe {
  bool connected = false;
  std::string sqlstate;  // of the server's refusal; "" when connected or when libpq itself failed
  std::string message;   // libpq's text (verbose), "" when connected
};

// How long a probe may take with DB_CONNECTION_TIMEOUT `connection_timeout_ms`:
// libpq raises a connect_timeout below 2 s to 2 s, and the probe does the same.
std::chrono::milliseconds probe_timeout(int connection_timeout_ms);

// One connection attempt to `conninfo` of at most `timeout`, closed again at once.
ConnectProbe probe_connection(const std::string& conninfo, std::chrono::milliseconds timeout);

}  // namespace queen::db
