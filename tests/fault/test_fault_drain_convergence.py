"""Fault: PostgreSQL stopped for 30 s while producers keep pushing at 70 % of the broker's measured
push capacity, then started again (docs/operations-spool.md, "How the broker moves between
PostgreSQL and the spool").

The spool must drain while the producers keep going, and the broker must return to writing pushes
straight to PostgreSQL: a replay slower than the producers would keep every new push spooled
behind the backlog forever. The rate is relative to the capacity measured at the start of the test
(same producers, same shape), so the test means the same thing on an idle and on a busy machine.

The ledger then decides: once consumers have read everything, every item answered `queued` or
`buffered` is stored exactly once and delivered exactly once, nothing else is stored, and each
producer's items keep their order per partition (live-stored and spooled items separately, as in
test_fault_pg_crash.py).
"""
import threading
import time

from harness import Deadline, Ledger, ack_item, attempts, run_workers, unique_name

from fault_support import (Producer, TokenBucket, assert_recovered, buffer_status, running, spool_gauges,
                           wait_for_status)

PRODUCERS = 4
BATCH = 10
PARTITIONS = tuple(f"p{i}" for i in range(10))
# Unpaced producers push this long to measure the capacity (after one warm-up request each).
CAPACITY_WINDOW_S = 4.0
LOAD_FRACTION = 0.70
OUTAGE_S = 30.0
# From PostgreSQL accepting connections again to pushes answered `queued` again.
DIRECT_WRITES_BOUND_S = 60.0
# "Direct writes" is proven by this many seconds of the load rate answered `queued` in a row, with
# nothing pending in the spool and no push answered `buffered` meanwhile.
DIRECT_PROOF_S = 1.0
DIRECT_PROOF_TIMEOUT_S = 30.0
# Load before the outage: the broker must be storing directly first.
DIRECT_BEFORE_OUTAGE_S = 2.0
PHASE_TIMEOUT_S = 45.0
STATUS_POLL_S = 0.25
CONSUMERS = 4
CONSUME_BATCH = 100
CONSUME_POP_WAIT_MS = 1000
# Consumption bound: generous for a busy 2-core box (pop+ack in Python reads thousands of messages a second).
CONSUME_MIN_TIMEOUT_S = 90.0
CONSUME_MESSAGES_PER_S_FLOOR = 500
LEDGER_TIMEOUT_S = 60.0
# The spool has room and the broker stays up: no item may be lost (`failed`) or go unanswered (`unknown`).
LOST_OR_UNANSWERED = ("failed", "unknown")


def measure_push_capacity(broker, ledger, queue):
    """Items per second stored by PRODUCERS unpaced producers of the test's shape (batch 10 over 10
    partitions, one request at a time each), over CAPACITY_WINDOW_S."""
    warm = [Producer(broker, ledger, queue, stream=f"warm{i}", partitions=PARTITIONS, batch=BATCH, max_items=BATCH)
            for i in range(PRODUCERS)]
    run_workers(PRODUCERS, lambda i: warm[i].run(), timeout=PHASE_TIMEOUT_S, name="warm-up")
    before = ledger.status_counts().get("queued", 0)
    probes = [Producer(broker, ledger, queue, stream=f"cap{i}", partitions=PARTITIONS, batch=BATCH,
                       max_items=10_000_000, seconds=CAPACITY_WINDOW_S) for i in range(PRODUCERS)]
    started = time.monotonic()
    run_workers(PRODUCERS, lambda i: probes[i].run(), timeout=CAPACITY_WINDOW_S + PHASE_TIMEOUT_S, name="capacity")
    elapsed = time.monotonic() - started
    counts = ledger.status_counts()
    assert set(counts) <= {"queued"}, f"pushes not stored while measuring the capacity: {counts}"
    return (counts.get("queued", 0) - before) / elapsed


def keep_answering_until(ledger, outage):
    """The outage lasts until `outage` expires whatever the broker does; meanwhile every push must
    still be answered (spooled), never lost or left unanswered."""
    for _ in attempts(outage.remaining(), interval=STATUS_POLL_S, max_interval=STATUS_POLL_S):
        counts = ledger.status_counts()
        unexpected = {s: counts[s] for s in LOST_OR_UNANSWERED if counts.get(s)}
        assert not unexpected, f"items answered {unexpected} during the outage (counts {counts})"


def wait_direct_writes(client, ledger, proof_items, timeout):
    """Wait until pushes go straight to PostgreSQL again; returns the monotonic time that streak began.

    Direct means: /status/buffers shows the database healthy and nothing pending, and from then on
    `proof_items` more items were answered `queued` while the count of `buffered` answers stayed put
    (one spooled push, even with an empty spool a moment before, restarts the streak).
    """
    streak = None  # (started at, queued then, buffered then)
    seen = None
    for _ in attempts(timeout, interval=STATUS_POLL_S, max_interval=STATUS_POLL_S):
        counts = ledger.status_counts()
        unexpected = {s: counts[s] for s in LOST_OR_UNANSWERED if counts.get(s)}
        assert not unexpected, f"items answered {unexpected} while the spool drained (counts {counts})"
        seen = buffer_status(client)
        queued, buffered = counts.get("queued", 0), counts.get("buffered", 0)
        if seen["pending"] > 0 or seen["dbHealthy"] is not True:
            streak = None
        elif streak is None or buffered != streak[2]:
            streak = (time.monotonic(), queued, buffered)
        elif queued - streak[1] >= proof_items:
            return streak[0]
    raise AssertionError(f"pushes not written directly to PostgreSQL again within {timeout:.0f}s: "
                         f"last /status/buffers {seen}, ledger {ledger.status_counts()}")


def consume_everything(broker, ledger, queue, expected, timeout):
    """CONSUMERS threads pop (batch 100) and ack until `expected` messages were delivered in all;
    every delivery is recorded in the ledger. Returns the number delivered."""
    lock = threading.Lock()
    delivered = [0]

    def consume(_index):
        deadline = Deadline(timeout)
        with broker.client() as client:
            while not deadline.expired():
                with lock:
                    if delivered[0] >= expected:
                        return
                messages = client.pop_messages(queue, batch=CONSUME_BATCH, wait=True, timeout_ms=CONSUME_POP_WAIT_MS)
                if not messages:
                    continue
                ledger.record_delivery(messages, queue=queue)
                acked = client.ack_batch([ack_item(m) for m in messages])
                assert acked.status == 200, f"ack batch: {acked!r}"
                failed = [r for r in acked.body if not r.get("success")]
                assert not failed, f"acks failed: {failed[:5]}"
                with lock:
                    delivered[0] += len(messages)

    run_workers(CONSUMERS, consume, timeout=timeout + PHASE_TIMEOUT_S, name="consumer")
    return delivered[0]


def test_spool_drains_and_direct_writes_resume_under_load_after_a_30s_outage(pg_cluster, broker_factory,
                                                                            record_property):
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="drain-converge")
    ledger, queue = Ledger(), unique_name("converge")

    capacity = measure_push_capacity(broker, ledger, queue)
    rate = LOAD_FRACTION * capacity
    record_property("push_capacity_msg_per_s", round(capacity))
    record_property("load_msg_per_s", round(rate))
    assert rate >= BATCH, f"measured push capacity {capacity:.0f} msg/s: the broker barely stores anything"
    pacer = TokenBucket(rate, burst=PRODUCERS * BATCH)
    producers = [Producer(broker, ledger, queue, stream=f"w{i}", partitions=PARTITIONS, batch=BATCH,
                          max_items=10_000_000, seconds=OUTAGE_S + DIRECT_WRITES_BOUND_S + 4 * PHASE_TIMEOUT_S,
                          pacer=pacer)
                 for i in range(PRODUCERS)]

    with broker.client() as client, running(producers):
        queued = ledger.status_counts().get("queued", 0)
        wait_for_status(ledger, "queued", queued + int(rate * DIRECT_BEFORE_OUTAGE_S), PHASE_TIMEOUT_S,
                        "paced pushes stored before the outage", forbidden=LOST_OR_UNANSWERED)

        cluster.stop(mode="fast")
        outage = Deadline(OUTAGE_S)
        wait_for_status(ledger, "buffered", 1, PHASE_TIMEOUT_S, "pushes spooled while PostgreSQL is down",
                        forbidden=LOST_OR_UNANSWERED)
        keep_answering_until(ledger, outage)
        spooled_in_outage = ledger.status_counts().get("buffered", 0)
        gauges = spool_gauges(client)
        assert gauges["queen_file_buffer_pending"] > 0, f"nothing pending in the spool after the outage: {gauges}"

        cluster.start()
        back_at = time.monotonic()
        direct_at = wait_direct_writes(client, ledger, proof_items=max(PRODUCERS * BATCH, int(rate * DIRECT_PROOF_S)),
                                       timeout=DIRECT_WRITES_BOUND_S + DIRECT_PROOF_TIMEOUT_S)
        record_property("spooled_in_outage", spooled_in_outage)
        record_property("seconds_to_direct_writes", round(direct_at - back_at, 1))
        assert direct_at - back_at <= DIRECT_WRITES_BOUND_S, (
            f"pushes went straight to PostgreSQL again only {direct_at - back_at:.1f}s after it was back "
            f"(bound {DIRECT_WRITES_BOUND_S:.0f}s; load {rate:.0f} msg/s = {LOAD_FRACTION:.0%} of "
            f"{capacity:.0f}; {spooled_in_outage} items spooled during the outage)")

    counts = ledger.status_counts()
    assert counts.get("failed", 0) == 0, f"a push was lost although the spool had room: {counts}"
    assert counts.get("unknown", 0) == 0, f"the broker stopped answering pushes: {counts}"
    accepted = len(ledger.accepted_keys())
    delivered = consume_everything(broker, ledger, queue, accepted,
                                   timeout=max(CONSUME_MIN_TIMEOUT_S, accepted / CONSUME_MESSAGES_PER_S_FLOOR))
    record_property("messages", accepted)
    ledger.assert_consistent(cluster.target, timeout=LEDGER_TIMEOUT_S, order_statuses=("queued",),
                             check_delivery=True)
    spooled_order = ledger.check(cluster.target, order_statuses=("buffered",))
    assert spooled_order.ok, "spooled items replayed out of order:\n" + spooled_order.summary()
    redelivered = {k: n for k, n in ledger.deliveries().items() if n > 1}
    assert not redelivered and delivered == accepted, (
        f"{delivered} deliveries for {accepted} accepted items; delivered more than once: {list(redelivered)[:10]}")

    assert_recovered(broker, timeout=LEDGER_TIMEOUT_S)
