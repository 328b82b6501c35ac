"""Stream queries end to end (docs/streams.md): the routes driven as the stream SDKs drive them
(harness/stream_sdk.py: register, pop with a lease, read state, cycle), with an exact sink ledger: every
window's result exactly once, and the state matching the source. Faults (a killed broker, PostgreSQL
stopped) are in tests/fault/test_fault_streams.py."""
import threading
import time

from harness import poll_until, unique_name
from harness.stream_sdk import (StreamWorker, assert_exactly_once, assert_state_matches_source, expected_windows,
                                push_source, sink_windows)

WINDOW_MS = 5000
FAR_FUTURE_MS = 10 ** 15  # the idle flush's clock once the source is drained: every window is ripe


def drain(workers, source_total, timeout=60.0):
    """Poll with every worker until they saw at least source_total messages and a pop came back empty."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = sum(w.poll_once() for w in workers)
        if got == 0 and sum(w.stats["committed"] for w in workers) > 0:
            return
    raise AssertionError(f"the source was not drained in {timeout} s: {[dict(w.stats) for w in workers]}")


def test_tumbling_window_count_emits_every_window_exactly_once(client, pg):
    source, sink = unique_name("st-src"), unique_name("st-sink")
    partitions, per_partition = ["p0", "p1", "p2"], 23
    client.configure(source, {"leaseTime": 30})
    push_source(client, source, partitions, per_partition)
    worker = StreamWorker(client, unique_name("counts"), source, sink, window_ms=WINDOW_MS, batch=7)
    registered = worker.register()
    assert registered["fresh"] is True

    drain([worker], len(partitions) * per_partition)
    assert worker.flush(FAR_FUTURE_MS)
    assert_exactly_once(pg, sink, expected_windows(partitions, per_partition, WINDOW_MS))
    assert_state_matches_source(pg, worker.query_id, partitions, per_partition)
    assert worker.stats["refused"] == 0 and worker.stats["failed"] == 0, worker.stats

    # A retried flush (same key) is answered replayed and pushes nothing again; the second
    # registration of the same chain keeps the state.
    assert worker.register()["fresh"] is False
    before = len(sink_windows(pg, sink))
    partition_id = sorted(worker.touched)[0]
    key = "tumb:5\u001f0\u001fp0"
    flush = {"query_id": worker.query_id, "partition_id": partition_id, "consumer_group": worker.group,
             "state_ops": [{"type": "delete", "key": key}], "ack": None, "idempotency_key": "replayed-flush",
             "push_items": [{"queue": sink, "partition": "extra", "payload": {"partition": "extra", "windowStart": 0,
                                                                             "count": 1}}]}
    first = client.post("/streams/v1/cycle", flush)
    again = client.post("/streams/v1/cycle", flush)
    assert first.status == again.status == 200 and first.body["success"] and "replayed" not in first.body
    assert again.body["replayed"] is True and again.body["push_results"] == [], again.body
    assert len(sink_windows(pg, sink)) == before + 1


def test_a_changed_chain_is_refused_until_reset(client, pg):
    source = unique_name("st-src")
    worker = StreamWorker(client, unique_name("shape"), source, None)
    worker.register()
    changed = client.post("/streams/v1/queries", {"name": worker.name, "source_queue": source, "config_hash": "v2"})
    assert changed.status == 409, changed
    assert changed.body["error"].startswith("config_hash mismatch"), changed.body
    assert changed.body["query_id"] == worker.query_id
    reset = client.post("/streams/v1/queries", {"name": worker.name, "source_queue": source, "config_hash": "v2",
                                                "reset": True})
    assert reset.status == 200 and reset.body["reset"] is True and reset.body["query_id"] == worker.query_id


def test_a_gate_with_partial_acks_passes_every_message_once_in_order(client, pg):
    source, sink = unique_name("st-gate"), unique_name("st-gate-out")
    per_partition = 10
    client.configure(source, {"leaseTime": 1, "retryLimit": 100})
    push_source(client, source, ["p0"], per_partition)
    worker = StreamWorker(client, unique_name("gate"), source, sink, batch=10, gate_allow=3)
    worker.register()

    def passed():
        return len(pg.query("select 1 from queen.stored_messages m join queen.partitions p on p.id = m.partition_id "
                            "join queen.queues q on q.id = p.queue_id where q.name = :'s'", s=sink))

    # After a partial ack the lease is kept: pops skip the partition until it expires, then the rest of
    # the batch comes back in order.
    deadline = time.monotonic() + 60
    while passed() < per_partition:
        worker.poll_once()
        assert time.monotonic() < deadline, worker.stats
    assert worker.poll_once() == 0, "nothing is left on the source"
    rows = pg.query("""select (m.payload ->> 'seq')::int as seq from queen.stored_messages m
                       join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
                       where q.name = :'s' order by m.seq""", s=sink)
    assert [r["seq"] for r in rows] == list(range(per_partition)), "every message passed once, in order"
    state = client.post("/streams/v1/state/get", {"query_id": worker.query_id,
                                                   "partition_id": sorted(worker.touched)[0]})
    assert [(r["key"], r["value"]) for r in state.body["rows"]] == [("gate", {"passed": per_partition})]
    assert worker.stats["committed"] == 4, worker.stats  # 3 + 3 + 3 + 1


def test_two_workers_racing_on_one_partition_commit_each_batch_once(client, pg, broker):
    source, sink = unique_name("st-race"), unique_name("st-race-out")
    partitions, per_partition = ["p0"], 40
    client.configure(source, {"leaseTime": 2, "retryLimit": 100})
    push_source(client, source, partitions, per_partition)
    name = unique_name("race")
    stalled = threading.Event()

    def stall_once(messages):
        # Worker A sits on its first batch past the lease: worker B takes the partition meanwhile.
        if not stalled.is_set():
            stalled.set()
            poll_until(lambda: b.stats["committed"] > 0, timeout=20, what="worker B committing meanwhile")

    with broker.client() as client_b:
        a = StreamWorker(client, name, source, sink, window_ms=WINDOW_MS, batch=8, before_cycle=stall_once)
        b = StreamWorker(client_b, name, source, sink, window_ms=WINDOW_MS, batch=8)
        assert a.register()["query_id"] == b.register()["query_id"]
        errors = []

        def run_b():
            try:
                while not stalled.is_set():
                    time.sleep(0.01)
                drain([b], per_partition)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        thread = threading.Thread(target=run_b)
        thread.start()
        a.poll_once()  # pops, stalls past its lease, then its cycle is refused
        thread.join(90)
        assert not errors, errors
        drain([a, b], per_partition)
        assert a.stats["refused"] >= 1, ("the stale worker's cycle must fail on its lease", a.stats)
        for worker in (a, b):
            worker.touched.update(b.touched)
        assert b.flush(FAR_FUTURE_MS)
    assert_exactly_once(pg, sink, expected_windows(partitions, per_partition, WINDOW_MS))
    assert_state_matches_source(pg, a.query_id, partitions, per_partition)


def test_an_unknown_shard_reads_empty_and_bad_ids_fail(client, pg):
    name = unique_name("shared-name")
    mine = StreamWorker(client, name, unique_name("src"), None)
    mine.register()
    read = client.post("/streams/v1/state/get", {"query_id": mine.query_id, "partition_id": mine.query_id})
    assert read.status == 200 and read.body == {"success": True, "rows": []}
    bad = client.post("/streams/v1/cycle", {"query_id": "nope", "partition_id": mine.query_id})
    assert bad.status == 200 and bad.body["success"] is False and bad.body["error"] == "query_id must be a UUID"
    missing = client.post("/streams/v1/cycle", {"partition_id": mine.query_id})
    assert missing.status == 400 and missing.body == {"error": "query_id is required"}
