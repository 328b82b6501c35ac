#include "db/connect_probe.h"

#include <poll.h>

#include <memory>

#include <libpq-fe.h>

#include "db/sqlstate.h"

namespace queen::db {
namespace {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};

// Waits until libpq's socket is ready the way PQconnectPoll asked; libpq's
// own connect_timeout ends a stuck attempt (PQconnectPoll fails then).
bool wait_socket(PGconn* conn, PostgresPollingStatusType want) {
  pollfd fd{};
  fd.fd = PQsocket(conn);
  if (fd.fd < 0) return false;
  fd.events = want == PGRES_POLLING_READING ? POLLIN : POLLOUT;
  constexpr int kSliceMs = 1000;  // re-enter PQconnectPoll now and then: it checks the timeout
  return poll(&fd, 1, kSliceMs) >= 0;
}

}  // namespace

ConnectProbe probe_connection(const std::string& conninfo) {
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
    if (!wait_socket(conn.get(), status)) break;
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
