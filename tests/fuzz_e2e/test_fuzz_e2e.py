"""The end-to-end fuzz run inside `make test` (a 20,000-request slice), plus checks of the tool itself.

    FUZZ_E2E_REQUESTS=2000 FUZZ_E2E_SEED=7 QUEEN_BROKER_BIN=build/queen-broker \
        /usr/bin/python3 -m pytest -q tests/fuzz_e2e

The full run (1,000,000 requests) is `make fuzz-e2e`; see docs/fuzzing.md, "End-to-end run".
"""
import socket
import threading

import e2e_requests
import fuzz_e2e
from e2e_wire import Connection

SLICE_REQUESTS = 20000


# --- the tool itself (no broker) ---------------------------------------------------------------------------
DENIED = [
    b"DELETE /api/v1/resources/queues/q HTTP/1.1\r\n\r\n",
    b"delete /api/v1/kv/a HTTP/1.1\r\n\r\n",
    b"DE\x00LETE /api/v1/kv/a HTTP/1.1\r\n\r\n",
    b"  DELETE /x HTTP/1.1\r\n\r\n",
    b"POST /api/v1/system/maintenance HTTP/1.1\r\n\r\n{\"enabled\":true}",
    b"POST /api/v1/system/maintenance/pop HTTP/1.1\r\n\r\n{\"enabled\":true}",
    b"POST /api/v1/%73ystem/m%61intenance HTTP/1.1\r\n\r\n",
    b"POST /api/v1/%2573ystem/maintenance HTTP/1.1\r\n\r\n",
    b"post http://h/api/v1/system/maintenance HTTP/1.1\r\n\r\n",
    b"POST\x00/api/v1/system/maintenance HTTP/1.1\r\n\r\n",
    b"HEAD /api/v1/system/maintenance HTTP/1.1\r\n\r\n",
    b"POST /api/v1/consumer-groups/g/subscriptions/seek HTTP/1.1\r\n\r\n",
    b"GET /api/v1/queues/q/seek HTTP/1.1\r\n\r\n",
    b"PUT /api/v1/resources/queues/q HTTP/1.1\r\n\r\n",
    b"POST /api/v1/push HTTP/1.1\r\nX-HTTP-Method-Override: DELETE\r\n\r\n",
    b"GET /api/v1/kv/a?_method=DELETE HTTP/1.1\r\n\r\n",
    # a smuggled second request on a later line
    b"POST /api/v1/push HTTP/1.1\nHost: x\nContent-Length: 0\n\nDELETE /api/v1/kv/a HTTP/1.1\n\n",
    b"GET /health HTTP/1.1\r\n\r\nPOST /api/v1/system/maintenance HTTP/1.1\r\n\r\n",
]
ALLOWED = [
    b"GET /api/v1/system/maintenance HTTP/1.1\r\n\r\n",
    b"GET /api/v1/system/maintenance/pop HTTP/1.1\r\n\r\n",
    b"POST /api/v1/push HTTP/1.1\r\nContent-Length: 12\r\n\r\n{\"items\":[]}",
    b"GET /api/v1/pop/queue/fz-a?batch=10&wait=true&timeout=10 HTTP/1.1\r\n\r\n",
    b"POST /api/v1/configure HTTP/1.1\r\n\r\n{\"queue\":\"q\",\"options\":{\"retentionEnabled\":true}}",
    b"PUT /api/v1/kv/flag-a HTTP/1.1\r\n\r\n{\"value\":1}",
]


def test_deny_list_refuses_every_route_that_deletes_or_moves_messages():
    for raw in DENIED:
        assert e2e_requests.denied(raw), f"not denied: {raw!r}"
    for raw in ALLOWED:
        assert e2e_requests.denied(raw) is None, f"denied: {raw!r}: {e2e_requests.denied(raw)}"


def test_generator_is_deterministic_covers_every_route_and_never_emits_a_denied_request():
    first = e2e_requests.Generator(11, 2, "fzt")
    second = e2e_requests.Generator(11, 2, "fzt")
    routes, mutations = set(), set()
    for seq in range(3000):
        a, b = first.next(seq), second.next(seq)
        assert a.raw == b.raw and a.send_plan == b.send_plan, f"request {seq} differs between two generators"
        assert e2e_requests.denied(a.raw) is None
        routes.add(a.route)
        mutations.update(m.split("-")[0] for m in a.mutations)
    assert routes >= {"push", "push-again", "pop-queue", "pop-partition", "pop-filter", "ack", "ack-batch",
                      "configure", "lease-extend", "transaction", "dlq", "kv-put", "kv-get", "maintenance-get",
                      "health", "metrics", "status"}, routes
    assert mutations >= {"line", "hdr", "body", "time"}, mutations


def test_push_answers_and_transactions_feed_the_ledger():
    class Resp:
        def __init__(self, status, body):
            self.status, self.body, self.headers = status, body, {"content-type": "application/json"}

    records, _, _ = fuzz_e2e.ledger_lines(Resp(201, b'[{"index":0,"status":"queued","transactionId":"t1",'
                                                    b'"messageId":"m1","partitionId":"p1","queue":"q",'
                                                    b'"partition":"p"},{"status":"duplicate","transactionId":"t1",'
                                                    b'"queue":"q","partition":"p"}]'))
    assert [(r["k"], r["t"], r["q"], r["p"], r["m"]) for r in records] == [("queued", "t1", "q", "p", "m1"),
                                                                           ("duplicate", "t1", "q", "p", None)]
    records, _, _ = fuzz_e2e.ledger_lines(Resp(200, b'{"transactionId":"x","success":true,"results":['
                                                    b'{"type":"push","success":true,"transactionId":"t2",'
                                                    b'"messageId":"m2","partitionId":"p2","queueName":"q"},'
                                                    b'{"type":"ack","success":true,"transactionId":"t3"}]}'))
    assert [(r["k"], r["t"], r["m"]) for r in records] == [("queued", "t2", "m2")]
    assert fuzz_e2e.ledger_lines(Resp(200, b'{"transactionId":"x","success":false,"results":[{"type":"push",'
                                           b'"success":true,"transactionId":"t4"}]}'))[0] == []
    assert fuzz_e2e.ledger_lines(Resp(400, b'[{"status":"queued","transactionId":"t5","queue":"q"}]'))[0] == []
    _, _, note = fuzz_e2e.ledger_lines(Resp(201, b'[{"status":"queued","transactionId":"\xff","queue":"q"}]'))
    assert note == "2xx-body-not-utf8"
    _, _, note = fuzz_e2e.ledger_lines(Resp(200, b'{"messages":[{"data":1e}]}'))
    assert note[0] == "2xx-body-not-json" and "around" in note[1]


def _serve_once(answers):
    """A one-connection TCP server that reads a little and writes each canned answer."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def run():
        conn, _ = server.accept()
        with conn:
            for answer in answers:
                conn.recv(65536)
                conn.sendall(answer)
        server.close()

    threading.Thread(target=run, daemon=True).start()
    return server.getsockname()[1]


def test_response_reader_survives_odd_answers():
    port = _serve_once([
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n[]",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        b"Host: 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    ])
    conn = Connection("127.0.0.1", port)
    first = conn.exchange(b"GET / HTTP/1.1\r\n\r\n", timeout=5)
    assert first.kind == "ok" and first.responses[0].status == 201 and first.responses[0].body == b"[]"
    second = conn.exchange(b"GET / HTTP/1.1\r\n\r\n", timeout=5)
    assert second.kind == "ok" and second.responses[0].body == b"abc"
    third = conn.exchange(b"GET / HTTP/1.1\r\n\r\n", timeout=5)
    assert third.responses[0].status == 404 and third.responses[0].version == "Host:" and not third.reusable
    port = _serve_once([b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"])
    assert Connection("127.0.0.1", port).exchange(b"GET / HTTP/1.1\r\n\r\n", timeout=5).kind in ("truncated",)


# --- the run --------------------------------------------------------------------------------------------------
def test_mutated_requests_over_real_sockets_leave_the_broker_serving_and_the_ledger_exact(pg):
    """FUZZ_E2E_REQUESTS (20000 here) mutated requests from FUZZ_E2E_WORKERS processes, then: broker alive,
    /health 200, push + pop + ack round trip, stored messages == answered queued, end RSS < 512 MiB."""
    opts = fuzz_e2e.Options.from_env(default_requests=SLICE_REQUESTS)
    report = fuzz_e2e.run(opts, pg=pg)
    assert report.ok, (f"fuzz-e2e seed {opts.seed} failed:\n  " + "\n  ".join(report.failures) +
                       f"\nreplay the generation with FUZZ_E2E_SEED={opts.seed} FUZZ_E2E_WORKERS={opts.workers} "
                       f"FUZZ_E2E_REQUESTS={opts.requests}; the last {opts.ring} requests of every worker, the "
                       f"report and the broker log are in {report.out_dir} (and beside it)")
