"""Fault: PostgreSQL crashes (`pg_ctl stop -m immediate`) under a running push load, producers keep
pushing through the outage, PostgreSQL comes back (docs/operations-spool.md).

The client-side ledger of transactionIds decides, not counts: every item answered `queued` or
`buffered` is stored exactly once, nothing is stored that was never sent, and per partition each
producer's items keep their send order (live-stored and spooled items separately: a spooled item
is replayed later, so it may legitimately land after a later live one). The spool is empty after.
"""
from harness import Ledger, unique_name

from fault_support import (Producer, TokenBucket, assert_recovered, running, spool_gauges, wait_buffer_status,
                           wait_for_status)

PRODUCERS = 3
# Progress each phase must make before the next fault is injected (items, all producers together).
QUEUED_BEFORE_CRASH = 60
BUFFERED_DURING_OUTAGE = 60
QUEUED_AFTER_RESTART = 60
PHASE_TIMEOUT_S = 45
DRAIN_TIMEOUT_S = 60
# After the restart the spool must drain before pushes are stored directly again (they queue behind it
# to keep each partition's order), and unpaced producers can spool 10k+ items during the outage. So the
# wait for the drain is sized by what was spooled: the drain's pause after its failed attempts during
# the outage (5 s) plus a margin, then the backlog at a replay rate floor far below what a busy 2-core
# box does (docs/operations-spool.md, "Replay speed": thousands of events/s even on a database autovacuum
# has not analyzed yet).
DRAIN_RESUME_ALLOWANCE_S = 15
REPLAY_FLOOR_EVENTS_PER_S = 500
# Producers are paced so they are still pushing after the restart however long the outage lasts on a busy
# box (unpaced, they spooled their whole bound during the outage and nothing was left to push afterwards).
PUSH_RATE_ITEMS_PER_S = 150
PRODUCER_SECONDS = 300
# The spool has room and the broker stays up: no item may be lost (`failed`) or go unanswered (`unknown`).
LOST_OR_UNANSWERED = ("failed", "unknown")


def test_push_load_survives_an_immediate_postgres_stop(pg_cluster, broker_factory):
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="pg-crash", env={"FILE_BUFFER_FLUSH_MS": 50})
    ledger, queue = Ledger(), unique_name("crash")
    pacer = TokenBucket(PUSH_RATE_ITEMS_PER_S, burst=PRODUCERS * 5)
    producers = [Producer(broker, ledger, queue, stream=f"w{i}", partitions=("p0", "p1"), batch=5,
                          max_items=PUSH_RATE_ITEMS_PER_S * PRODUCER_SECONDS, seconds=PRODUCER_SECONDS, pacer=pacer)
                 for i in range(PRODUCERS)]

    with broker.client() as client, running(producers):
        wait_for_status(ledger, "queued", QUEUED_BEFORE_CRASH, PHASE_TIMEOUT_S, "pushes stored before the crash",
                        forbidden=LOST_OR_UNANSWERED)
        cluster.stop(mode="immediate")
        wait_for_status(ledger, "buffered", BUFFERED_DURING_OUTAGE, PHASE_TIMEOUT_S,
                        "pushes spooled while PostgreSQL is down", forbidden=LOST_OR_UNANSWERED)

        # The outage is visible: events pending in the spool, the drain sees an unhealthy database,
        # the live ping fails, and the gauges say the same (they never need the database).
        outage = wait_buffer_status(client, lambda s: s["pending"] > 0 and s["dbHealthy"] is False,
                                    timeout=15, what="/status/buffers reporting the outage")
        assert outage["database"]["reachable"] is False, outage
        gauges = spool_gauges(client)
        assert gauges["queen_file_buffer_pending"] > 0, gauges
        assert gauges["queen_file_buffer_db_healthy"] == 0, gauges

        queued_before_restart = ledger.status_counts().get("queued", 0)
        cluster.start()
        backlog = ledger.status_counts().get("buffered", 0)
        wait_buffer_status(client, lambda s: s["pending"] == 0 and s["dbHealthy"] is True,
                           timeout=DRAIN_RESUME_ALLOWANCE_S + backlog / REPLAY_FLOOR_EVENTS_PER_S,
                           what=f"the spool ({backlog} items answered buffered) drained after PostgreSQL restarted")
        wait_for_status(ledger, "queued", queued_before_restart + QUEUED_AFTER_RESTART, PHASE_TIMEOUT_S,
                        "pushes stored again after PostgreSQL restarted", forbidden=LOST_OR_UNANSWERED)

    counts = ledger.status_counts()
    assert counts.get("failed", 0) == 0, f"a push was lost although the spool had room: {counts}"
    assert counts.get("unknown", 0) == 0, f"the broker stopped answering pushes: {counts}"
    ledger.assert_consistent(cluster.target, timeout=DRAIN_TIMEOUT_S, order_statuses=("queued",))
    spooled_order = ledger.check(cluster.target, order_statuses=("buffered",))
    assert spooled_order.ok, "spooled items replayed out of order:\n" + spooled_order.summary()

    assert_recovered(broker, timeout=DRAIN_TIMEOUT_S)
