"""Fault: the broker is SIGKILLed while it is spooling (PostgreSQL down), then a new broker process
starts on the same FILE_BUFFER_DIR with PostgreSQL back: startup recovery (and the drain after it)
replays everything the dead process had answered `buffered`, exactly once, in spool order.
"""
from harness import Ledger, poll_until, unique_name

from fault_support import (Producer, buffer_status, running, spool_files, wait_for_status,
                           wait_spool_empty)

PARTITIONS = ("p0", "p1", "p2")
SPOOLED_BEFORE_KILL = 200
PUSH_BATCH = 10
# Small files, so the dead process leaves several finalized .buf files and an active .tmp behind.
EVENTS_PER_FILE = 50
# Items a second producer gets answered `buffered` before the kill lands in the middle of its pushes.
LIVE_BUFFERED_BEFORE_KILL = 20
RECOVERY_TIMEOUT_S = 60


def test_sigkill_while_spooling_then_restart_replays_everything(pg_cluster, broker_factory):
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="sigkill",
                            env={"FILE_BUFFER_FLUSH_MS": 50, "FILE_BUFFER_EVENTS_PER_FILE": EVENTS_PER_FILE})
    ledger, queue = Ledger(), unique_name("sigkill")
    cluster.stop(mode="immediate")

    # A first producer spools a known amount, sequentially, and every item must be `buffered`.
    spooler = Producer(broker, ledger, queue, stream="spooler", partitions=PARTITIONS, batch=PUSH_BATCH,
                       max_items=SPOOLED_BEFORE_KILL)
    spooler.run()
    counts = ledger.status_counts()
    assert counts == {"buffered": SPOOLED_BEFORE_KILL}, f"every push during the outage must be buffered: {counts}"
    with broker.client() as client:
        poll_until(lambda: buffer_status(client)["pending"] == SPOOLED_BEFORE_KILL, timeout=10,
                   what=f"/status/buffers pending == {SPOOLED_BEFORE_KILL}")

    # A second producer is mid-push when the process dies: whatever it was told `buffered` is owed.
    live = Producer(broker, ledger, queue, stream="live", partitions=PARTITIONS, batch=PUSH_BATCH)
    with running([live]):
        wait_for_status(ledger, "buffered", SPOOLED_BEFORE_KILL + LIVE_BUFFERED_BEFORE_KILL, 60,
                        "the second producer spooling", forbidden=("failed", "unknown"))
        broker.kill()
    left_behind = spool_files(broker.spool_dir)
    assert sum(left_behind.values()) > 0, f"the killed broker left no spool behind: {left_behind}"

    cluster.start()
    broker.start()  # same port, same FILE_BUFFER_DIR: startup recovery runs before the listener binds
    with broker.client() as client:
        poll_until(lambda: client.get("/health/ready").status == 200, timeout=RECOVERY_TIMEOUT_S,
                   what="/health/ready 200 after recovery")
        ledger.assert_consistent(cluster.target, timeout=RECOVERY_TIMEOUT_S, order_statuses=("buffered",))
        wait_spool_empty(client, broker.spool_dir, timeout=RECOVERY_TIMEOUT_S)
        assert buffer_status(client)["failed"] == 0

    counts = ledger.status_counts()
    assert counts.get("buffered", 0) >= SPOOLED_BEFORE_KILL + LIVE_BUFFERED_BEFORE_KILL, counts
    assert counts.get("queued", 0) == 0 and counts.get("failed", 0) == 0, counts
