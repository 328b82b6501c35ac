"""Reads under their own lane (docs/flow-control.md, "Reads"): issue 20, reproduction 4.

A READ_ONLY tenant floods `GET /api/v1/messages?queue=big&limit=1000` on a 300,000-message queue from
64 connections, as many as the broker has handler threads. The Read lane holds at most its slots plus
its queue of them (the rest are refused at once with 429 and Retry-After), and the read statement
timeout ends a read that works too long with a 503 naming its variable. Meanwhile another tenant's
pushes and pops, and /health and /metrics, keep their p99 under 100 ms, every accepted push is stored,
and nothing goes to the spool.

The flood runs in a process of its own (read_flood.py) so its threads never hold the interpreter lock
the latency probes here need.
"""
import json
import os
import subprocess
import sys
import threading
import time

import jwt

from harness import poll_until, schema, unique_name
from harness.assertions import assert_json_error
from harness.process import measured_bounds_apply, p99

SECRET = "read-lane-test-secret-0123456789abcdef"
BIG_QUEUE_MESSAGES = 300_000
PUSH_BATCH = 10_000           # PUSH_MAX_ITEMS: the largest push the broker takes
READERS = 64                  # HTTP_MAX_THREADS (its default): every handler thread, without the lane
READ_SLOTS, READ_QUEUE = 1, 8  # one CPU-bound listing at a time: a two-core machine keeps a core for the rest
READ_WAIT_MS = 500
READ_TIMEOUT_MS = 1500
PROBE_WINDOW_S = 6.0          # how long the bystander is measured, without the flood and during it
P99_BOUND_MS = 100.0
BASELINE_FACTOR = 1.5         # on a box whose own p99 is above the bound: what the flood may add to it
READ_HANG_S = 10              # a read unanswered this long counts as hung (it needs at most wait + timeout)
LANE_SAMPLE_INTERVAL_S = 0.05  # how often the Read lane's gauges are read in the window (a rate, not a wait)
FLOOD = os.path.join(os.path.dirname(__file__), "read_flood.py")


def token(sub, tenant, role):
    now = int(time.time())
    return jwt.encode({"sub": sub, "tenant": tenant, "role": role, "iat": now, "exp": now + 3600}, SECRET,
                      algorithm="HS256")


def operator_token():
    now = int(time.time())
    return jwt.encode({"sub": "ops", "role": "admin", "iat": now, "exp": now + 3600}, SECRET, algorithm="HS256")



def fill(broker, auth, queue):
    """BIG_QUEUE_MESSAGES messages in pushes of PUSH_BATCH, three at a time (one partition each)."""
    batches = BIG_QUEUE_MESSAGES // PUSH_BATCH
    failures = []

    def producer(first):
        with broker.client() as c:
            c.default_headers["Authorization"] = auth
            for b in range(first, batches, 3):
                items = [{"queue": queue, "partition": f"p{first}", "payload": {"b": b, "n": n}}
                         for n in range(PUSH_BATCH)]
                resp = c.push(items, timeout=120)
                if resp.status != 201 or any(i["status"] != "queued" for i in resp.body):
                    failures.append((b, resp.status))

    workers = [threading.Thread(target=producer, args=(k,)) for k in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(300)
    assert not failures, failures


class Probe:
    """One kind of bystander request, sent again and again in its own thread until stopped, timed."""

    def __init__(self, broker, name, call):
        self.name, self.samples_ms, self.failures = name, [], []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(broker, call), name=name, daemon=True)

    def _run(self, broker, call):
        with broker.client() as c:
            while not self._stop.is_set():
                started = time.monotonic()
                problem = call(c)
                self.samples_ms.append((time.monotonic() - started) * 1000)
                if problem:
                    self.failures.append(problem)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(30)
        assert not self._thread.is_alive(), f"the {self.name} probe is stuck"


def run_probes(broker, calls, window_s):
    """Every call of `calls` ({name: call(client) -> problem or None}) again and again in its own
    thread for window_s. Returns the stopped probes by name."""
    probes = {name: Probe(broker, name, call).start() for name, call in calls.items()}
    deadline = time.monotonic() + window_s
    while time.monotonic() < deadline:
        time.sleep(LANE_SAMPLE_INTERVAL_S)
    for probe in probes.values():
        probe.stop()
    return probes


def test_a_read_flood_on_a_big_queue_leaves_other_tenants_health_and_metrics_fast(pg_cluster, broker_factory):
    # A cluster of its own: 300,000 messages stay out of the shared database, and without fsync the
    # probes measure the broker rather than this machine's disk.
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="read-lane", env={
        "JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ALGORITHM": "HS256",
        "QUEEN_FLOW_READ_SLOTS": READ_SLOTS, "QUEEN_FLOW_READ_QUEUE": READ_QUEUE,
        "QUEEN_FLOW_READ_WAIT_MS": READ_WAIT_MS, "QUEEN_READ_STATEMENT_TIMEOUT_MS": READ_TIMEOUT_MS})
    hostile_rw = f"Bearer {token('loader', 'acme', 'read-write')}"
    hostile_ro = token("snoop", "acme", "read-only")
    bystander = f"Bearer {token('gina', 'globex', 'read-write')}"
    big, own = unique_name("big"), unique_name("bystander")

    started = time.monotonic()
    fill(broker, hostile_rw, big)
    fill_s = time.monotonic() - started
    assert schema.message_count(cluster.target, big) == BIG_QUEUE_MESSAGES

    pushed, popped, push_statuses = [], [], set()

    def push(c):
        c.default_headers["Authorization"] = bystander
        tid = f"b{len(pushed)}"
        resp = c.push([{"queue": own, "payload": {"n": len(pushed)}, "transactionId": tid}])
        if resp.status != 201:
            return f"push answered {resp.status}: {resp.body}"
        push_statuses.update(i["status"] for i in resp.body)
        pushed.append(tid)
        return None

    def pop(c):
        c.default_headers["Authorization"] = bystander
        resp = c.pop(own, batch=10, wait=False, auto_ack=True)
        if resp.status == 200:
            popped.extend(m["transactionId"] for m in resp.body["messages"])
        elif resp.status != 204:
            return f"pop answered {resp.status}: {resp.body}"
        return None

    def health(c):
        resp = c.health()
        return None if resp.status == 200 else f"/health answered {resp.status}"

    def metrics(c):
        resp = c.metrics()
        return None if resp.status == 200 else f"/metrics answered {resp.status}"

    calls = {"push": push, "pop": pop, "health": health, "metrics": metrics}
    # What this machine gives the bystander with no flood at all: on a loaded box the bound below
    # is relative to it, never looser than P99_BOUND_MS on a quiet one.
    baseline = run_probes(broker, calls, PROBE_WINDOW_S)

    flood = subprocess.Popen(
        [sys.executable, FLOOD, broker.url, f"/api/v1/messages?queue={big}&limit=1000", hostile_ro,
         str(READERS), str(READ_HANG_S)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lane_seen = []
    try:
        with broker.client() as c:
            # The flood holds the lane: every Read slot taken, reads queued or refused.
            poll_until(lambda: c.labelled("queen_flow_slots_in_use").get('lane="read"') == READ_SLOTS and
                       c.labelled("queen_flow_rejected_total").get('lane="read",reason="queue_full"', 0) > 0,
                       timeout=30, what="the Read lane saturated by the flood")

            def lane(client):
                lane_seen.append((client.labelled("queen_flow_slots_in_use").get('lane="read"', 0),
                                  client.labelled("queen_flow_waiting").get('lane="read"', 0)))
                time.sleep(LANE_SAMPLE_INTERVAL_S)

            flooded = run_probes(broker, {**calls, "lane": lane}, PROBE_WINDOW_S)
    finally:
        out, _ = flood.communicate(input="", timeout=120)
    report = json.loads(out.strip().splitlines()[-1])
    statuses = {int(k): v for k, v in report["statuses"].items()}

    # Reads are bounded: never more than the lane's slots running nor its queue waiting, so at
    # most READ_SLOTS + READ_QUEUE of the 64 handler threads; every read answered, none hung.
    assert lane_seen and max(s for s, _ in lane_seen) <= READ_SLOTS, lane_seen
    assert max(w for _, w in lane_seen) <= READ_QUEUE, lane_seen
    assert not report["errors"] and report["stuck_threads"] == 0, report
    assert set(statuses) <= {200, 429, 503}, report
    assert statuses.get(429, 0) > 0, report
    assert report["bodies"]["429"] == ['{"error":"read lane busy: '], report
    assert report["retry_after"]["429"] == ["1"], report  # QUEEN_FLOW_READ_WAIT_MS, rounded up
    if 503 in statuses:  # the listing is slow on this build: the read statement timeout ended it
        assert report["bodies"]["503"] == ['{"error":"read timed out: '], report
        assert report["retry_after"]["503"] == [None], report

    # The bystander tenant, /health and /metrics never noticed.
    figures = {name: (p99(baseline[name].samples_ms), p99(flooded[name].samples_ms), len(flooded[name].samples_ms))
               for name in calls}
    for name in calls:
        for probe in (baseline[name], flooded[name]):
            assert not probe.failures, (name, probe.failures[:5])
        quiet_p99, flood_p99, count = figures[name]
        assert count >= 20, (name, count)
        bound = max(P99_BOUND_MS, BASELINE_FACTOR * quiet_p99)
        assert flood_p99 < bound or not measured_bounds_apply(), (
            f"{name}: p99 {flood_p99:.1f} ms over {count} requests during the flood, bound {bound:.1f} ms "
            f"(without it {quiet_p99:.1f} ms); all: {figures}; fill took {fill_s:.1f} s")

    # Nothing accepted was lost, nothing went to the spool, the big queue is whole.
    assert push_statuses == {"queued"}, push_statuses
    assert schema.message_count(cluster.target, own) == len(pushed)
    assert set(popped) <= set(pushed)
    assert schema.message_count(cluster.target, big) == BIG_QUEUE_MESSAGES
    with broker.client() as c:
        c.default_headers["Authorization"] = f"Bearer {operator_token()}"  # spool state is the operator's
        assert c.get("/api/v1/status/buffers").body["pending"] == 0
        c.default_headers["Authorization"] = bystander
        # The lane let go of everything once the flood ended.
        poll_until(lambda: c.labelled("queen_flow_slots_in_use").get('lane="read"') == 0 and
                   c.labelled("queen_flow_waiting").get('lane="read"') == 0,
                   timeout=10, what="the Read lane idle after the flood")


def test_a_read_past_the_read_statement_timeout_answers_503_naming_it_and_nothing_else(temp_database,
                                                                                        broker_factory):
    """A read that works longer than QUEEN_READ_STATEMENT_TIMEOUT_MS ends with its own 503, while the
    same broker's pushes stay `queued` (no spool) and its health is untouched."""
    database = temp_database()
    broker = broker_factory(pg=database.target, name="read-timeout", env={"QUEEN_READ_STATEMENT_TIMEOUT_MS": 1})
    queue = unique_name("rt")
    with broker.client() as c:
        resp = c.push([{"queue": queue, "payload": {"n": n}} for n in range(PUSH_BATCH)], timeout=120)
        assert resp.status == 201, resp
        slow = c.get("/api/v1/messages", params={"queue": queue, "limit": 1000})
        assert_json_error(slow, 503, prefix="read timed out: ")
        assert "1 ms (QUEEN_READ_STATEMENT_TIMEOUT_MS)" in slow.body["error"], slow.body
        assert slow.header("retry-after") is None, slow.headers
        after = c.push([{"queue": queue, "payload": {"after": True}}])
        assert after.status == 201 and after.body[0]["status"] == "queued", after
        assert c.get("/api/v1/status/buffers").body["pending"] == 0
        assert c.health().body["database"] == "connected"
