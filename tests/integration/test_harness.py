"""Self-tests of tests/harness: the fault suite builds on these helpers, so they must be right.

No queen-broker needed: the Broker helper is exercised with a stand-in HTTP server script.
"""
import http.server
import os
import signal
import stat
import subprocess
import threading

import pytest

from harness import (BackgroundWorker, Broker, BrokerError, HttpClient, Ledger, PgCluster, WorkerError,
                     attempts, closed_by_peer, poll_until, run_workers)
from harness import env as harness_env

# --- HttpClient ----------------------------------------------------------------------------


class StubHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections = 0

    def setup(self):
        type(self).connections += 1
        super().setup()

    def log_message(self, *args):
        pass

    def _send(self, status, body=b"", content_type="application/json", close=False):
        self.send_response(status)
        if body or status != 204:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        # close without announcing it: the client's next request meets a dead keep-alive socket
        self.close_connection = close

    def do_GET(self):
        if self.path.startswith("/json"):
            self._send(200, b'{"path": "%s"}' % self.path.encode())
        elif self.path == "/empty":
            self._send(204)
        elif self.path == "/text":
            self._send(200, b"plain text", content_type="text/plain")
        elif self.path == "/drop":
            self._send(200, b"{}", close=True)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self._send(201, self.rfile.read(length) or b"null")


@pytest.fixture
def stub_server():
    StubHandler.connections = 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_http_client_parses_json_text_and_empty_bodies_on_one_connection(stub_server):
    with HttpClient(stub_server) as c:
        status, headers, body = c.get("/json", params={"a": 1, "flag": True, "skip": None})
        assert (status, body) == (200, {"path": "/json?a=1&flag=true"})
        assert headers["content-type"] == "application/json"
        empty = c.get("/empty")
        assert (empty.status, empty.body, empty.raw) == (204, None, b"")
        assert c.get("/text").body == "plain text"
        assert c.post("/echo", {"x": [1, 2]}).body == {"x": [1, 2]}
        assert c.post("/echo", data=b'{"raw": true}').body == {"raw": True}
    assert StubHandler.connections == 1, "keep-alive: every request should reuse the first connection"


def test_http_client_retries_once_when_a_kept_alive_connection_was_closed(stub_server):
    with HttpClient(stub_server) as c:
        assert c.get("/drop").status == 200
        assert closed_by_peer(c._conn.sock, 5)  # the next request meets a closed keep-alive connection
        assert c.get("/json").status == 200
    assert StubHandler.connections == 2


def test_http_client_without_stale_retry_surfaces_the_error(stub_server):
    with HttpClient(stub_server, retry_stale=False) as c:
        assert c.get("/drop").status == 200
        assert closed_by_peer(c._conn.sock, 5)
        with pytest.raises(OSError):
            c.get("/json")


# --- waiting -------------------------------------------------------------------------------


def test_poll_until_returns_the_first_truthy_value_and_times_out_otherwise():
    calls = []
    assert poll_until(lambda: calls.append(1) or (len(calls) >= 3 and "done"), timeout=5) == "done"
    with pytest.raises(TimeoutError, match="never"):
        poll_until(lambda: False, timeout=0.2, what="never")


def test_attempts_start_at_once_end_at_the_deadline_and_stop_when_the_caller_breaks():
    seen = [deadline.elapsed() for deadline in attempts(0.3, interval=0.05)]
    assert seen[0] < 0.05, seen
    assert seen[-1] >= 0.3, seen
    assert len(seen) >= 3, seen
    assert seen == sorted(seen)
    for count, _ in enumerate(attempts(30, interval=0.01), start=1):
        if count == 3:
            break
    assert count == 3


def test_run_workers_returns_results_in_order_and_reports_failures():
    assert run_workers(4, lambda i: i * i, timeout=10) == [0, 1, 4, 9]

    def fail_odd(i):
        assert i % 2 == 0, f"worker {i} fails"

    with pytest.raises(WorkerError, match="2 of 4 workers failed"):
        run_workers(4, fail_odd, timeout=10)


def test_background_worker_stops_and_reraises():
    def loop(stop):
        n = 0
        while not stop.wait(0.01):
            n += 1
        return n

    assert BackgroundWorker(loop).start().stop() >= 0

    def boom(stop):
        raise ValueError("boom")

    worker = BackgroundWorker(boom).start()
    with pytest.raises(WorkerError, match="boom"):
        worker.stop()


# --- Ledger --------------------------------------------------------------------------------


class FakeResponse:
    def __init__(self, status, body):
        self.status, self.body = status, body


class FakePg:
    """Answers schema.stored_messages' query with fixed rows."""

    def __init__(self, rows):
        self.rows = rows

    def query(self, sql, **variables):
        return self.rows


def stored(queue, partition, txid, position):
    return {"queue": queue, "partition": partition, "transaction_id": txid, "message_id": None,
            "position": position}


def pushed(ledger, stream, txids, statuses, queue="q"):
    items = [{"queue": queue, "transactionId": t} for t in txids]
    ledger.record_push(stream, items, FakeResponse(201, [{"status": s} for s in statuses]))


def test_ledger_accepts_a_consistent_history():
    ledger = Ledger()
    pushed(ledger, "a", ["a1", "a2"], ["queued", "queued"])
    pushed(ledger, "b", ["b1"], ["buffered"])
    pushed(ledger, "a", ["a2"], ["duplicate"])
    ledger.record_push("c", [{"queue": "q", "transactionId": "c1"}], error=ConnectionResetError())
    ledger.record_push("d", [{"queue": "q", "transactionId": "d1"}], FakeResponse(400, {"error": "x"}))
    rows = [stored("q", "Default", "a1", 0), stored("q", "Default", "b1", 1), stored("q", "Default", "a2", 2)]
    report = ledger.check(FakePg(rows))
    assert report.ok, report.summary()
    assert report.counts == {"queued": 2, "buffered": 1, "duplicate": 1, "unknown": 1, "rejected": 1}


def test_ledger_reports_missing_phantom_duplicated_and_reordered_messages():
    ledger = Ledger()
    pushed(ledger, "a", ["a1", "a2", "a3"], ["queued", "queued", "queued"])
    rows = [stored("q", "Default", "a2", 0), stored("q", "Default", "a1", 1),
            stored("q", "Default", "a2", 2), stored("q", "Default", "ghost", 3)]
    report = ledger.check(FakePg(rows))
    assert not report.ok
    assert report.missing == [("q", "Default", "a3")]
    assert report.phantoms == [("q", "Default", "ghost")]
    assert report.duplicated == [(("q", "Default", "a2"), 2)]
    assert len(report.out_of_order) == 1


def test_ledger_delivery_check_needs_every_accepted_message_seen():
    ledger = Ledger()
    pushed(ledger, "a", ["a1", "a2"], ["queued", "failed"])
    rows = [stored("q", "Default", "a1", 0)]
    assert ledger.check(FakePg(rows), check_delivery=True).undelivered == [("q", "Default", "a1")]
    ledger.record_delivery([{"queue": "q", "partition": "Default", "transactionId": "a1"}])
    assert ledger.check(FakePg(rows), check_delivery=True).ok


# --- Broker (with a stand-in binary) -------------------------------------------------------

STAND_IN = """#!/usr/bin/python3
import http.server, json, os, signal, sys
print("stand-in broker", os.environ["QUEEN_SERVER_ID"], "spool", os.environ["FILE_BUFFER_DIR"],
      "stray", os.environ.get("QUEEN_HARNESS_STRAY", "absent"), flush=True)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"status": "healthy", "database": "connected", "version": "0"}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
signal.signal(signal.SIGTERM, lambda *a: (print("graceful stop", flush=True), sys.exit(0)))
http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
"""


@pytest.fixture
def stand_in_binary():
    path = os.path.join(harness_env.new_tmp_dir("stand-in"), "fake-broker")
    with open(path, "w") as fh:
        fh.write(STAND_IN)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def test_broker_helper_starts_kills_restarts_and_captures_logs(stand_in_binary, pg, monkeypatch):
    monkeypatch.setenv("QUEEN_HARNESS_STRAY", "leaked")
    broker = Broker(pg=pg, binary=stand_in_binary, name="stand-in", env={"EXTRA": "1"})
    try:
        broker.start()
        assert broker.alive
        assert broker.client().health().body["status"] == "healthy"
        assert broker.environment()["EXTRA"] == "1"
        assert broker.environment()["PG_PORT"] == str(pg.port)
        broker.wait_for_log("stray absent", timeout=5)  # the caller's environment does not leak in
        first_pid = broker.pid
        assert broker.kill() == -signal.SIGKILL
        assert not broker.alive
        broker.start()
        assert broker.pid != first_pid
        assert broker.stop() == 0
        log = broker.log_text()
        assert log.count("=== harness: start #") == 2
        assert "graceful stop" in log
        assert f"spool {broker.spool_dir}" in log
    finally:
        broker.kill()


SANITIZED_STAND_IN = """#!/usr/bin/python3
import os, sys, time
print("stand-in broker up", flush=True)
time.sleep(float(os.environ.get("CRASH_AFTER", "0")))  # how long this stand-in lives: its behaviour, not a wait
sys.stderr.write("=================================================================\\n"
                 "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010\\n"
                 "    #0 0x55d0 in queen::spool::decode src/spool/record_codec.cpp:42\\n")
sys.stderr.flush()
os.abort()
"""


def test_broker_helper_reports_sanitizer_reports_and_crashes(pg):
    path = os.path.join(harness_env.new_tmp_dir("sanitized-stand-in"), "fake-broker")
    with open(path, "w") as fh:
        fh.write(SANITIZED_STAND_IN)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    broker = Broker(pg=pg, binary=path, name="sanitized", env={"CRASH_AFTER": "0"})
    broker.unregister()  # this broker crashes on purpose: the conftest hook must not fail this test
    broker.start(wait=False)
    poll_until(lambda: not broker.alive, timeout=10, what="the stand-in to abort")
    assert broker.sanitizer_reports() == ["==4242==ERROR: AddressSanitizer: heap-use-after-free on address "
                                          "0x602000000010"]
    assert broker.crashed() == signal.SIGABRT
    failure = broker.failure()
    assert "sanitizer report: ==4242==ERROR: AddressSanitizer: heap-use-after-free" in failure
    assert "died from SIGABRT" in failure
    assert broker.failure(since=broker.log_size()) == f"{broker.name}: died from SIGABRT (not sent by the harness) " \
                                                      f"(log: {broker.log_path})"
    # A process the harness killed did not crash; a UBSan line counts as a report.
    broker.start(wait=False, env={"CRASH_AFTER": "60"})
    assert broker.kill() == -signal.SIGKILL
    assert broker.crashed() is None
    with open(broker.log_path, "a") as log:
        log.write("src/mesh/frame.cpp:77:3: runtime error: left shift of negative value -1\n")
    assert broker.sanitizer_reports(since=broker.start_offset) == [
        "src/mesh/frame.cpp:77:3: runtime error: left shift of negative value -1"]


def test_broker_helper_reports_a_process_that_dies_during_startup(pg):
    broker = Broker(pg=pg, binary="/bin/false", name="dies")
    with pytest.raises(BrokerError, match="exited with code 1"):
        broker.start()


# --- PgCluster -----------------------------------------------------------------------------


def test_pg_cluster_survives_an_immediate_stop_and_can_hang(pg_cluster):
    cluster = pg_cluster(durable=False)
    admin = cluster.target.with_db("postgres")
    admin.execute("create table harness_probe (n int); insert into harness_probe values (42);")
    cluster.stop(mode="immediate")
    assert not cluster.is_running()
    assert not cluster.target.is_up()
    cluster.start()
    assert admin.scalar("select n from harness_probe") == 42, "a committed row must survive a crash"
    cluster.freeze()
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            admin.psql("select 1;", timeout=2)
    finally:
        cluster.thaw()
    assert cluster.target.is_up()
    assert cluster.target.scalar("select count(*) as n from sqitch.changes") > 0, "migrations deployed"
