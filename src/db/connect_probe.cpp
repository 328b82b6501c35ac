#include "db/connect_probe.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <libpq-fe.h>

#include "db/sqlstate.h"

namespace queen::db {
namespace {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};

using Clock = std::chrono::steady_clock;

// Waits until libpq's socket is ready the way PQconnectPoll asked, or the
// deadline passes (libpq applies connect_timeout only to blocking connects).
bool wait_socket(PGconn* conn, PostgresPollingStatusType want, Clock::time_point deadline) {
  pollfd fd{};
  fd.fd = PQsocket(conn);
  if (fd.fd < 0) return false;
  fd.events = want == PGRES_POLLING_READING ? POLLIN : POLLOUT;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return false;
  return poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1000))) >= 0;
}

}  // namespace

std::chrono::milliseconds probe_timeout(int connection_timeout_ms) {
  constexpr int kLibpqMinConnectTimeoutMs = 2000;
  return std::chrono::milliseconds(std::max(kLibpqMinConnectTimeoutMs, connection_timeout_ms));
}

ConnectProbe probe_connection(const std::string& conninfo, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  ConnectProbe probe;
  std::unique_ptr<PGconn, ConnCloser> conn(PQconnectStart(conninfo.c_str()));
  if (!conn) {
    probe.message = "out of memory";
    return probe;
  }
  // Before the first answer is read: the refusal is rendered with its SQLSTATE.
  PQsetErrorVerbosity(conn.get(), PQERRORS_VERBOSE);
  PostgresPollingStatusType status = PQstatus(conn.get()) == CONNECTION_BAD ? PGRES_POLLING_FAILED
                                                                            : PGRES_POLLING_WRITING;
  while (status == PGRES_POLLING_READING || status == PGRES_POLLING_WRITING) {
    if (!wait_socket(conn.get(), status, deadline)) {
      probe.message = "timed out after " + std::to_string(timeout.count()) + " ms connecting";
      return probe;
    }
    status = PQconnectPoll(conn.get());
  }
  if (status == PGRES_POLLING_OK && PQstatus(conn.get()) == CONNECTION_OK) {
    probe.connected = true;
    return probe;
  }
  probe.message = PQerrorMessage(conn.get());
  probe.sqlstate = std::string(sqlstate_in_verbose_message(probe.message));
  return probe;
}

}  // namespace queen::db
