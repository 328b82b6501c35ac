"""Fault: stream cycles (docs/streams.md, "Exactly once") while the broker is SIGKILLed and restarted, and
while PostgreSQL is stopped immediately and started again. A worker drives the routes as the stream SDKs
do (tests/harness/stream_sdk.py) in a thread of its own throughout; a cycle cut off by the fault either
committed (its retry is refused by the lease, or answered replayed for a keyed flush) or left nothing, and
the lease's expiry brings its messages back. The exact sink ledger decides: every window's result exactly
once with its count, and each shard's state ends as the source says (its watermark, no open window).
"""
import threading
import time

from harness import poll_until, unique_name
from harness.stream_sdk import (StreamWorker, assert_exactly_once, assert_state_matches_source, expected_windows,
                                push_source)

WINDOW_MS = 5000
FAR_FUTURE_MS = 10 ** 15
PARTITIONS = ["p0", "p1", "p2", "p3"]
PER_PARTITION = 160   # pushed in FAULTS + 1 slices of 40
BATCH = 10            # small batches: many cycles, so the faults land between and during them
LEASE_S = 2           # a cut-off cycle's messages come back this soon
FAULTS = 3
PHASE_TIMEOUT_S = 60


class Running:
    """The worker's pop/cycle loop in a thread until stopped (or the source is drained and stopped)."""

    def __init__(self, worker):
        self.worker = worker
        self.stop = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        try:
            while not self.stop.is_set():
                self.worker.poll_once()
        except Exception as e:  # noqa: BLE001 - re-raised by join()
            self.error = e

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(30)
        assert not self.thread.is_alive(), "the stream worker did not stop"
        if self.error:
            raise self.error


def finish(worker, pg, source):
    """Drain what is left (leases of cut-off cycles expire first), flush every window, check the ledger."""
    group = worker.group

    def drained():
        worker.poll_once()
        lag = pg.scalar("""select coalesce(sum(p.last_seq - coalesce(c.cursor_seq, 0)), 0)::bigint from queen.partitions p
                           join queen.queues q on q.id = p.queue_id
                           left join queen.consumers c on c.partition_id = p.id and c.consumer_group = :'g'
                           where q.name = :'q'""", g=group, q=source)
        return lag == 0
    poll_until(drained, timeout=PHASE_TIMEOUT_S, interval=0.05, what="the source consumed to its end")
    poll_until(lambda: worker.flush(FAR_FUTURE_MS), timeout=PHASE_TIMEOUT_S, what="the idle flush committing")
    assert_exactly_once(pg, worker.sink, expected_windows(PARTITIONS, PER_PARTITION, WINDOW_MS))
    assert_state_matches_source(pg, worker.query_id, PARTITIONS, PER_PARTITION)


def run_through_faults(broker, pg, name, inject):
    """One worker running throughout; `inject(setup_client, worker)` is called FAULTS times, each once a few
    more cycles committed; then the ledger is checked. The source is pushed in FAULTS + 1 slices, the next one
    just before each fault, so a fast worker never drains it before the last fault lands."""
    per_slice = PER_PARTITION // (FAULTS + 1)
    assert per_slice * (FAULTS + 1) == PER_PARTITION
    with broker.client() as setup, broker.client() as worker_client:
        source, sink = unique_name("sf-src"), unique_name("sf-sink")
        setup.configure(source, {"leaseTime": LEASE_S, "retryLimit": 1000})
        push_source(setup, source, PARTITIONS, per_slice)
        worker = StreamWorker(worker_client, unique_name(name), source, sink, window_ms=WINDOW_MS, batch=BATCH)
        worker.register()
        with Running(worker):
            for fault in range(FAULTS):
                committed = worker.stats["committed"]
                poll_until(lambda: worker.stats["committed"] >= committed + 5 + fault, timeout=PHASE_TIMEOUT_S,
                           interval=0.005,
                           what=lambda: f"cycles committing before fault {fault} (worker {dict(worker.stats)})")
                push_source(setup, source, PARTITIONS, per_slice, first_seq=(fault + 1) * per_slice)
                inject(setup, worker)
        finish(worker, pg, source)
        return worker


def test_sigkill_the_broker_between_and_during_cycles(broker_factory, pg):
    broker = broker_factory(name="streams-kill")

    def kill_and_restart(_setup, _worker):
        broker.kill()
        time.sleep(0.2)
        broker.start()

    worker = run_through_faults(broker, pg, "kill", kill_and_restart)
    assert worker.stats["retried"] > 0, ("the kills must have cut requests off", worker.stats)


def test_stop_postgres_immediately_between_and_during_cycles(pg_cluster, broker_factory):
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="streams-pg-stop")

    def stop_and_start(setup, worker):
        cluster.stop(mode="immediate")
        # A cycle answers 503 meanwhile (never spooled): the worker retries, then gives up its batch.
        poll_until(lambda: setup.post("/streams/v1/cycle", {"query_id": worker.query_id,
                                                            "partition_id": worker.query_id}).status == 503,
                   timeout=PHASE_TIMEOUT_S, what="a cycle answering 503 during the outage")
        cluster.start()

    run_through_faults(broker, cluster.target, "pgstop", stop_and_start)
