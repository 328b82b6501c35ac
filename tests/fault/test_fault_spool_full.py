"""Fault: the spool volume fills up during a PostgreSQL outage (a 256 KiB tmpfs as FILE_BUFFER_DIR).

The spool has no size cap: it grows until the filesystem is full, and then pushes answer `failed`
(docs/operations-spool.md, "Where the spool lives, and its limits"). So: items are answered
`failed` (HTTP 201, with an error), never `buffered` once the disk is full and no space was freed;
everything answered `buffered` before that is stored once PostgreSQL returns; the broker keeps
serving throughout; and once the drain has freed the space, spooling works again. In push
maintenance the same full volume turns the response into a 500 (docs/operations-spool.md,
"Planned database work"), still with the per-item array.
"""
from harness import Ledger, unique_name

from fault_support import PUSH_TIMEOUT_S, buffer_status, maintenance_status, spool_gauges, wait_spool_empty

TINY_FS_KIB = 256
PAYLOAD_BYTES = 2048
# Bound on pushes before the volume must be full: 256 KiB hold about 120 such items.
MAX_ITEMS_UNTIL_FULL = 400
# Once full (and nothing drains), this many further items must all fail.
FAILED_STREAK = 20
ITEMS_AFTER_SPACE_FREED = 5
DRAIN_TIMEOUT_S = 60


def push_one(client, ledger, queue, n, stream="producer", status_if_failed=201):
    """Push item n alone (its own request) and return its per-item result, shape-checked.

    The HTTP status is 201 whatever the item statuses, except `status_if_failed` when the item failed
    (push maintenance answers 500 when a spool write failed; a database outage still answers 201).
    """
    transaction_id = f"{stream}-{n}"
    items = [{"queue": queue, "partition": "p0", "transactionId": transaction_id,
              "payload": {"n": n, "pad": "x" * PAYLOAD_BYTES}}]
    resp = client.push(items, timeout=PUSH_TIMEOUT_S)
    ledger.record_push(stream, items, response=resp)
    assert isinstance(resp.body, list) and len(resp.body) == 1, resp
    result = resp.body[0]
    expected_http = status_if_failed if result.get("status") == "failed" else 201
    assert resp.status == expected_http, f"expected HTTP {expected_http}: {resp!r}"
    assert result.get("transactionId") == transaction_id and result.get("queue") == queue, result
    if result["status"] == "buffered":
        assert isinstance(result.get("messageId"), str) and result["messageId"], result
    if result["status"] == "failed":
        assert isinstance(result.get("error"), str) and result["error"], result
    return result


def fill_the_volume(client, ledger, queue, first, status_if_failed=201):
    """Push items one by one until one fails for lack of space, then FAILED_STREAK more that must all
    fail (nothing frees space meanwhile). Returns (number of items buffered, next item number)."""
    statuses = []
    n = first
    while "failed" not in statuses and n < first + MAX_ITEMS_UNTIL_FULL:
        statuses.append(push_one(client, ledger, queue, n, status_if_failed=status_if_failed)["status"])
        n += 1
    assert "failed" in statuses, f"{MAX_ITEMS_UNTIL_FULL} items of {PAYLOAD_BYTES} B fit a {TINY_FS_KIB} KiB spool?"
    buffered = statuses.count("buffered")
    assert statuses == ["buffered"] * buffered + ["failed"], \
        f"items before the volume filled must be buffered: {statuses}"
    assert buffered > 0, "the spool accepted nothing: the test did not exercise a filling volume"
    for _ in range(FAILED_STREAK):
        result = push_one(client, ledger, queue, n, status_if_failed=status_if_failed)
        n += 1
        assert result["status"] == "failed", f"not failed although the volume is full: {result}"
    return buffered, n


def assert_broker_serves(client, queue):
    """Liveness, pops and the in-process gauges answer while the spool volume is full."""
    health = client.health()
    assert health.status in (200, 503) and "database" in health.body, health
    pop = client.pop(queue, wait=False)
    assert pop.status in (200, 204, 503), f"pop: {pop!r}"
    return health, pop


def assert_all_accepted_delivered(client, ledger, pg, queue):
    """Consumers get every accepted item, and nothing is stored that was answered failed."""
    ledger.record_delivery(client.drain(queue, len(ledger.accepted_keys()), timeout=20), queue=queue)
    report = ledger.assert_consistent(pg, timeout=5, order_statuses=("buffered",), check_delivery=True)
    assert not report.failed_but_stored, f"items answered failed were stored: {report.failed_but_stored}"


def test_full_spool_volume_answers_failed_and_the_broker_keeps_serving(pg_cluster, tiny_tmpfs, broker_factory):
    cluster = pg_cluster()
    spool_dir = tiny_tmpfs(TINY_FS_KIB)
    broker = broker_factory(pg=cluster.target, name="spool-full", spool_dir=spool_dir,
                            env={"FILE_BUFFER_FLUSH_MS": 50})
    ledger, queue = Ledger(), unique_name("full")

    with broker.client(retry_stale=False) as client:
        assert push_one(client, ledger, queue, 0)["status"] == "queued"
        cluster.stop(mode="immediate")

        buffered_count, n = fill_the_volume(client, ledger, queue, first=1)
        health, pop = assert_broker_serves(client, queue)
        assert health.body["database"] == "disconnected", health
        assert pop.status in (204, 503), f"a pop with the database down answers 204 or 503: {pop!r}"
        assert buffer_status(client)["pending"] == buffered_count
        assert spool_gauges(client)["queen_file_buffer_pending"] == buffered_count

        cluster.start()
        report = ledger.assert_consistent(cluster.target, timeout=DRAIN_TIMEOUT_S, order_statuses=("buffered",))
        assert not report.failed_but_stored, f"items answered failed were stored: {report.failed_but_stored}"
        wait_spool_empty(client, spool_dir, timeout=DRAIN_TIMEOUT_S)

        # The drain freed the volume: a second outage spools again.
        cluster.stop(mode="immediate")
        again = [push_one(client, ledger, queue, n + i, stream="second-outage")["status"]
                 for i in range(ITEMS_AFTER_SPACE_FREED)]
        assert again == ["buffered"] * ITEMS_AFTER_SPACE_FREED, again
        cluster.start()
        ledger.assert_consistent(cluster.target, timeout=DRAIN_TIMEOUT_S, order_statuses=("buffered",))
        wait_spool_empty(client, spool_dir, timeout=DRAIN_TIMEOUT_S)

        assert_all_accepted_delivered(client, ledger, cluster.target, queue)


def test_full_spool_volume_in_push_maintenance_answers_500_with_failed_items(pg_cluster, tiny_tmpfs,
                                                                              broker_factory):
    cluster = pg_cluster()
    spool_dir = tiny_tmpfs(TINY_FS_KIB)
    broker = broker_factory(pg=cluster.target, name="maintenance-full", spool_dir=spool_dir,
                            env={"FILE_BUFFER_FLUSH_MS": 50})
    ledger, queue = Ledger(), unique_name("maint-full")

    with broker.client(retry_stale=False) as client:
        assert client.set_maintenance(True).status == 200
        # In push maintenance a failed spool write makes the response a 500 (per-item array kept;
        # docs/operations-spool.md, "Planned database work").
        buffered_count, _ = fill_the_volume(client, ledger, queue, first=0, status_if_failed=500)
        health, pop = assert_broker_serves(client, queue)
        assert health.status == 200 and health.body["database"] == "connected", health
        assert pop.status == 204, f"nothing is stored while the drain is paused: {pop!r}"
        assert maintenance_status(client)["bufferedMessages"] == buffered_count

        assert client.set_maintenance(False).status == 200
        ledger.assert_consistent(cluster.target, timeout=DRAIN_TIMEOUT_S, order_statuses=("buffered",))
        wait_spool_empty(client, spool_dir, timeout=DRAIN_TIMEOUT_S)
        assert_all_accepted_delivered(client, ledger, cluster.target, queue)
