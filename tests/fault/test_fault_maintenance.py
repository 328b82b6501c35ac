"""Push maintenance on/off round trip while producers run, across a broker restart.

As docs/operations-spool.md ("Planned database work") describes it: enabling diverts every push to
the spool before it touches PostgreSQL and pauses the drain; the flag is mirrored into
queen.system_state, survives a restart and is re-read at boot; disabling finalizes the active file
and resumes the drain, which replays everything. The ledger decides: every accepted item stored
exactly once, per-partition order kept per producer (live-stored and spooled items separately),
spool empty at the end.
"""
from harness import Ledger, schema, unique_name

from fault_support import (Producer, TokenBucket, maintenance_status, running, spool_gauges,
                           wait_for_status, wait_spool_empty)

PRODUCERS = 2
PHASE_ITEMS = 40
PHASE_TIMEOUT_S = 45
DRAIN_TIMEOUT_S = 60
# Paced, and bounded by time rather than by a count: a spooled push costs next to nothing, so
# unpaced producers could spend any item budget before the restart phase, which needs new items.
PUSH_RATE_ITEMS_PER_S = 100
PRODUCER_SECONDS = 240


def set_push_maintenance(client, enabled):
    resp = client.set_maintenance(enabled)
    assert resp.status == 200, resp
    assert resp.body["maintenanceMode"] is enabled, resp
    return resp.body


def assert_push_maintenance(client, database, enabled):
    """The flag as the broker reports it (GET re-reads the persisted flag), as the gauge, and as stored."""
    assert maintenance_status(client)["maintenanceMode"] is enabled
    assert spool_gauges(client)["queen_maintenance_mode_enabled"] == (1.0 if enabled else 0.0)
    assert schema.system_flag(database, "maintenance") is enabled


def test_maintenance_round_trip_with_running_producers_survives_a_restart(pg_cluster, broker_factory):
    cluster = pg_cluster()
    database = cluster.target
    broker = broker_factory(pg=database, name="maintenance", env={"FILE_BUFFER_FLUSH_MS": 50})
    ledger, queue = Ledger(), unique_name("maint")
    pacer = TokenBucket(PUSH_RATE_ITEMS_PER_S, burst=PRODUCERS * 4)
    producers = [Producer(broker, ledger, queue, stream=f"w{i}", partitions=("p0", "p1"), batch=4,
                          max_items=PUSH_RATE_ITEMS_PER_S * PRODUCER_SECONDS, seconds=PRODUCER_SECONDS,
                          pacer=pacer)
                 for i in range(PRODUCERS)]

    with running(producers):
        wait_for_status(ledger, "queued", PHASE_ITEMS, PHASE_TIMEOUT_S, "pushes stored before maintenance")
        with broker.client() as client:
            set_push_maintenance(client, True)
            assert_push_maintenance(client, database, True)
            buffered_at = ledger.status_counts().get("buffered", 0)
            wait_for_status(ledger, "buffered", buffered_at + PHASE_ITEMS, PHASE_TIMEOUT_S,
                            "pushes diverted to the spool")
            # The drain is paused: what was spooled stays pending, nothing of it reaches the database.
            assert maintenance_status(client)["bufferedMessages"] > 0
            spooled = {e.transaction_id for e in ledger.entries() if e.status == "buffered"}
            stored = {row["transaction_id"] for row in schema.stored_messages(database, [queue])}
            assert not spooled & stored, f"spooled items reached the database while maintenance is on: " \
                                         f"{sorted(spooled & stored)[:10]}"

        # Restart while maintenance is on (producers keep trying through the restart).
        broker.restart()
        with broker.client() as client:
            assert_push_maintenance(client, database, True)
            buffered_at = ledger.status_counts().get("buffered", 0)
            wait_for_status(ledger, "buffered", buffered_at + PHASE_ITEMS, PHASE_TIMEOUT_S,
                            "pushes still diverted after the restart")

            queued_at = ledger.status_counts().get("queued", 0)
            set_push_maintenance(client, False)
            assert_push_maintenance(client, database, False)
            wait_for_status(ledger, "queued", queued_at + PHASE_ITEMS, PHASE_TIMEOUT_S,
                            "pushes stored again after maintenance")

    counts = ledger.status_counts()
    assert counts.get("failed", 0) == 0, counts
    ledger.assert_consistent(database, timeout=DRAIN_TIMEOUT_S, order_statuses=("queued",))
    spooled_order = ledger.check(database, order_statuses=("buffered",))
    assert spooled_order.ok, "spooled items replayed out of order:\n" + spooled_order.summary()

    with broker.client() as client:
        wait_spool_empty(client, broker.spool_dir, timeout=DRAIN_TIMEOUT_S)
    # Off survives a restart as well.
    broker.restart()
    with broker.client() as client:
        assert_push_maintenance(client, database, False)
        pushed = client.push([{"queue": queue, "partition": "p0", "transactionId": "after-restart",
                               "payload": {}}])
        assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
    assert "after-restart" in {r["transaction_id"] for r in schema.stored_messages(database, [queue])}


def test_a_scheduled_item_spooled_in_maintenance_is_still_a_timer_after_replay(pg_cluster, broker_factory):
    """deliverAt survives the spool: replay hands the item back as a timer, never delivers it early."""
    import time

    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="maint-timer", env={"FILE_BUFFER_FLUSH_MS": 50})
    queue = unique_name("maint-timer")
    with broker.client() as client:
        set_push_maintenance(client, True)
        deliver_at_ms = int(time.time() * 1000) + 4000
        resp = client.push([{"queue": queue, "transactionId": "t-1", "payload": {"n": 1}, "deliverAt": deliver_at_ms}])
        assert resp.status == 201 and resp.body[0]["status"] == "buffered", resp
        set_push_maintenance(client, False)
        wait_spool_empty(client, broker.spool_dir, timeout=DRAIN_TIMEOUT_S)
        # Replayed, yet not deliverable before its time.
        if time.time() * 1000 < deliver_at_ms - 500:
            early = client.pop(queue, wait=False)
            assert early.status == 204, f"a spooled timer was delivered before its deliverAt: {early}"
        got = client.pop(queue, wait=True, timeout_ms=15000)
        assert got.status == 200, got
        assert time.time() * 1000 >= deliver_at_ms - 5, "delivered before deliverAt"
        assert [m["transactionId"] for m in got.body["messages"]] == ["t-1"]
