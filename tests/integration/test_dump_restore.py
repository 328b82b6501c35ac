"""A logical backup taken while a broker runs, restored into a fresh cluster, serves on (docs/lifecycle.md).

The source database is filled through a real broker: several queues and partitions, a consumer group part way
through its partitions (some batches acked, one half acked with its lease still held), a second group with a lease
held, queue-mode leases, a dead letter, and a producer pushing while pg_dump runs. The dump (custom format) is
restored into a new database of a new cluster whose roles are created first, as docs/lifecycle.md says, and a new
broker serves it: every message not acked before the dump reaches each group exactly once, in partition order, the
leased ones only after their leases expire, and nothing acked comes back.
"""
import datetime
import os

from harness import BackgroundWorker, Deadline, QUEUE_MODE, ack_item, poll_until, unique_name
from harness import schema
from harness.assertions import assert_no_content

# Long enough that the restored leases are usually still held when the new broker starts (the test then sees them
# honoured), short enough to wait for.
LEASE_S = 20
# Clock reading of the test against the database's lease expiry (both on this host).
CLOCK_MARGIN_S = 0.05
CONSUME_TIMEOUT_S = LEASE_S + 90
# The tables that hold messages, cursors, leases and dead letters: the source keeps them unchanged after the
# dump (nothing pops, acks or expires there), so the restore must hold exactly what they hold.
DATA_TABLES = ("queues", "partitions", "segments", "consumers", "consumer_groups", "subscriptions", "dlq",
               "dlq_payloads")


def now_epoch():
    return datetime.datetime.now(datetime.timezone.utc).timestamp()


def push_partition(client, queue, partition, prefix, sizes):
    """Pushes len(sizes) requests (one segment each) to one partition; returns the transaction ids in order."""
    ids = []
    for size in sizes:
        items = [{"queue": queue, "partition": partition, "payload": {"n": len(ids) + i},
                  "transactionId": f"{prefix}-{partition}-{len(ids) + i}"} for i in range(size)]
        resp = client.push(items)
        assert resp.status == 201 and all(r["status"] == "queued" for r in resp.body), resp
        ids += [item["transactionId"] for item in items]
    return ids


def pop(client, queue, group, batch):
    msgs = client.pop_messages(queue, batch=batch, consumer_group=group)
    assert msgs, f"pop of {queue} for {group or QUEUE_MODE} found nothing"
    return msgs


def ack(client, msgs, group, status="completed", error=None):
    resp = client.ack_batch([ack_item(m, status, error) for m in msgs], consumer_group=group)
    assert resp.status == 200 and all(r["success"] for r in resp.body), resp


def unacked(pushed, acked):
    """{partition: transaction ids still to deliver, in order}: everything pushed but not acked."""
    return {p: [t for t in ids if t not in acked] for p, ids in pushed.items()}


def rows_without_queue(rows, queue):
    """schema.table_rows of DATA_TABLES without the rows of `queue` (its own, its partitions' and theirs)."""
    ids = {r["id"] for r in rows["queues"] if r["name"] == queue}
    ids |= {r["id"] for r in rows["partitions"] if r["queue_id"] in ids}
    return {table: [r for r in rows[table] if not ids & {r.get("id"), r.get("queue_id"), r.get("partition_id")}]
            for table in DATA_TABLES}


def consume(client, queue, group, expected_count, deadline):
    """Pops (wildcard, long polls) and acks everything until expected_count messages came; returns
    [(partition, transaction id, epoch seconds when the pop answered)] in delivery order."""
    got = []
    while len(got) < expected_count and not deadline.expired():
        msgs = client.pop_messages(queue, batch=4, wait=True, timeout_ms=1000, consumer_group=group)
        answered = now_epoch()
        if msgs:
            got += [(m["partition"], m["transactionId"], answered) for m in msgs]
            ack(client, msgs, group)
    return got


def test_a_dump_taken_while_the_broker_runs_restores_and_serves_every_unacked_message_once(
        temp_database, pg_cluster, broker_factory, tmp_path):
    source = temp_database().target
    orders, events, live = unique_name("dump-orders"), unique_name("dump-events"), unique_name("dump-live")
    old = broker_factory(pg=source, name="dump-source")
    with old.client() as c:
        for queue in (orders, events, live):
            assert c.configure(queue, {"leaseTime": LEASE_S, "retryDelay": 0}).status == 200
        pushed = {(orders, p): push_partition(c, orders, p, "o", [3, 1, 4]) for p in ("p0", "p1", "p2")}
        pushed.update({(events, p): push_partition(c, events, p, "e", [2, 4]) for p in ("e0", "e1")})

        # Group g1 part way through: one batch half acked (its lease still held), one batch acked whole.
        g1_held = pop(c, orders, "g1", 5)
        ack(c, g1_held[:2], "g1")
        g1_done = pop(c, orders, "g1", 4)
        ack(c, g1_done, "g1")
        # Group g2: one batch acked, the next one leased.
        g2_done = pop(c, orders, "g2", 3)
        ack(c, g2_done, "g2")
        g2_held = pop(c, orders, "g2", 3)
        # Queue mode on events: a dead letter, then the rest of its batch left leased; a second partition leased.
        qm_first = pop(c, events, None, 2)
        ack(c, qm_first[:1], None, status="dlq", error="poison before the dump")
        qm_second = pop(c, events, None, 3)
        held_leases = {(orders, "g1", g1_held[0]["leaseId"]), (orders, "g2", g2_held[0]["leaseId"]),
                       (events, QUEUE_MODE, qm_first[0]["leaseId"]), (events, QUEUE_MODE, qm_second[0]["leaseId"])}
        assert len({lease for _, _, lease in held_leases}) == 4

    acked = {
        (orders, "g1"): {m["transactionId"] for m in g1_held[:2] + g1_done},
        (orders, "g2"): {m["transactionId"] for m in g2_done},
        (events, QUEUE_MODE): {qm_first[0]["transactionId"]},
    }

    # A producer pushes one message at a time to `live` while pg_dump runs.
    live_queued = []

    def produce(stop):
        with old.client() as c:
            while not stop.is_set():
                n = len(live_queued)
                resp = c.push([{"queue": live, "partition": "l0", "payload": {"n": n}, "transactionId": f"l-{n}"}])
                assert resp.status == 201 and resp.body[0]["status"] == "queued", resp
                live_queued.append(f"l-{n}")

    producer = BackgroundWorker(produce).start()
    poll_until(lambda: len(live_queued) >= 5, timeout=30, what=lambda: f"{len(live_queued)} live pushes")
    queued_before_dump = len(live_queued)
    dump_path = os.path.join(tmp_path, "queen.dump")
    source.dump(dump_path)
    queued_after_dump = len(live_queued)
    producer.stop()
    old.stop()

    # A fresh cluster has none of the roles the schema's objects are owned by and granted to.
    cluster = pg_cluster(deploy=False)
    fresh = cluster.target.with_db("queen_restored")
    assert not fresh.with_db("postgres").scalar("select count(*) as n from pg_roles where rolname like 'queen%'")
    fresh.create_roles()
    fresh.with_db("postgres").execute('create database "queen_restored";')
    fresh.restore(dump_path)

    # The producer went on after the dump, so `live` is compared below, by what the snapshot could hold.
    source_rows = rows_without_queue(schema.table_rows(source), live)
    restored_rows = rows_without_queue(schema.table_rows(fresh), live)
    for table in DATA_TABLES:
        assert restored_rows[table] == source_rows[table], f"queen.{table} differs after the restore"
    # The sqitch registry travelled with the dump: the restored database knows its release.
    assert "Nothing to deploy (up-to-date)" in fresh.sqitch("status")

    # The held leases travelled with their cursors: same lease ids, expiring where they did.
    restored_leases = [(queue, row) for queue in (orders, events) for row in schema.leases(fresh, queue)]
    assert held_leases <= {(queue, row["consumer_group"], row["lease_id"]) for queue, row in restored_leases}, \
        (held_leases, restored_leases)
    # (queue, group, partition) -> when its held lease expires, epoch seconds
    lease_expiry = {(queue, row["consumer_group"], row["partition"]): row["lease_expires_at"]
                    for queue, row in restored_leases if (queue, row["consumer_group"], row["lease_id"]) in held_leases}

    # The dump is one snapshot: of the producer's sequence, a prefix at least as long as what was queued
    # before pg_dump started and no longer than what was queued when it ended.
    live_restored = [m["transaction_id"] for m in sorted(schema.stored_messages(fresh, [live]),
                                                            key=lambda m: m["position"])]
    assert queued_before_dump <= len(live_restored) <= queued_after_dump, \
        (queued_before_dump, len(live_restored), queued_after_dump)
    assert live_restored == live_queued[:len(live_restored)]

    new = broker_factory(pg=fresh, name="dump-restored")
    expected = {
        (orders, "g1"): unacked({p: ids for (q, p), ids in pushed.items() if q == orders}, acked[(orders, "g1")]),
        (orders, "g2"): unacked({p: ids for (q, p), ids in pushed.items() if q == orders}, acked[(orders, "g2")]),
        (events, QUEUE_MODE): unacked({p: ids for (q, p), ids in pushed.items() if q == events},
                                      acked[(events, QUEUE_MODE)]),
        (live, QUEUE_MODE): {"l0": live_restored},
    }
    deadline = Deadline(CONSUME_TIMEOUT_S)
    with new.client() as c:
        for (queue, group), per_partition in expected.items():
            count = sum(len(ids) for ids in per_partition.values())
            wire_group = None if group == QUEUE_MODE else group
            got = consume(c, queue, wire_group, count, deadline)
            delivered = [t for _, t, _ in got]
            assert len(delivered) == len(set(delivered)), f"{queue}/{group}: delivered twice: {delivered}"
            assert set(delivered) == {t for ids in per_partition.values() for t in ids}, \
                f"{queue}/{group}: delivered {sorted(delivered)}, expected {per_partition}"
            for partition, ids in per_partition.items():
                assert [t for p, t, _ in got if p == partition] == ids, f"{queue}/{group}/{partition}: order"
                expiry = lease_expiry.get((queue, group, partition))
                if expiry is not None:
                    early = [(t, at) for p, t, at in got if p == partition and at < expiry - CLOCK_MARGIN_S]
                    assert not early, f"{queue}/{group}/{partition}: delivered before its lease expired at " \
                                      f"{expiry}: {early}"
            assert_no_content(c.pop(queue, consumer_group=wire_group))
        # The dead letter of before the dump is there and was never delivered again.
        dlq = c.dlq(queue=events)
        assert dlq.status == 200, dlq
        assert [(m["transactionId"], m["consumerGroup"], m["errorMessage"]) for m in dlq.body["messages"]] == \
            [(qm_first[0]["transactionId"], QUEUE_MODE, "poison before the dump")]
