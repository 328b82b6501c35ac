"""FIFO per partition and "delivery order equals commit order" under concurrency
(docs/procedures.md, "Ordering model")."""
from harness import Deadline, Ledger, ack_item, run_workers, unique_name

PRODUCERS = 4
MESSAGES_PER_PRODUCER = 60


def produce(broker, queue, partition, producer, count, batch_sizes=(1, 3, 5, 2), ledger=None):
    """Push `count` messages {producer, seq} in small sequential batches; every item must be queued."""
    with broker.client() as c:
        seq, turn = 0, 0
        while seq < count:
            size = min(batch_sizes[turn % len(batch_sizes)], count - seq)
            items = [{"queue": queue, "partition": partition, "payload": {"producer": producer, "seq": s},
                      "transactionId": f"p{producer}-{s}"} for s in range(seq, seq + size)]
            resp = c.push(items)
            if ledger is not None:
                ledger.record_push(f"producer-{producer}", items, resp)
            assert resp.status == 201, resp
            assert [r["status"] for r in resp.body] == ["queued"] * size, resp.body
            seq += size
            turn += 1


def assert_each_producer_in_order(messages, producers, per_producer, complete=True):
    sequences = {p: [] for p in range(producers)}
    for m in messages:
        sequences[m["data"]["producer"]].append(m["data"]["seq"])
    for producer, seqs in sequences.items():
        assert seqs == sorted(seqs), f"producer {producer} delivered out of order: {seqs}"
        assert len(seqs) == len(set(seqs)), f"producer {producer} delivered twice: {seqs}"
        if complete:
            assert seqs == list(range(per_producer)), f"producer {producer}: {seqs}"


def test_fifo_per_partition_with_four_concurrent_producers(broker, client, pg):
    queue, partition = unique_name("fifo"), "lane"
    ledger = Ledger()
    run_workers(PRODUCERS, lambda p: produce(broker, queue, partition, p, MESSAGES_PER_PRODUCER, ledger=ledger),
                timeout=90)
    # Stored exactly once each, in each producer's order, nothing else (checked in queen.stored_messages).
    ledger.assert_consistent(pg, timeout=5)
    total = PRODUCERS * MESSAGES_PER_PRODUCER
    got = client.drain(queue, total, timeout=30, batch=50, partition=partition)
    assert len(got) == total, f"delivered {len(got)} of {total}"
    assert len({m["transactionId"] for m in got}) == total
    assert_each_producer_in_order(got, PRODUCERS, MESSAGES_PER_PRODUCER)
    created = [m["createdAt"] for m in got]
    assert created == sorted(created), "createdAt must not go backwards within a partition"


def test_delivery_order_is_created_at_then_id_order(client):
    """Messages are ordered by (createdAt, id) within a partition; the UUIDv7 id is the
    tie-breaker, so items of one push, which may share a createdAt, must carry
    increasing ids. Clients and the DLQ/messages routes sort by these two fields."""
    queue = unique_name("order-key")
    items = [{"queue": queue, "partition": "p", "payload": {"i": i}} for i in range(20)]
    for _ in range(3):
        assert client.push(items).status == 201
    msgs = client.pop_messages(queue, partition="p", batch=100)
    assert len(msgs) == 60
    keys = [(m["createdAt"], m["id"]) for m in msgs]
    assert keys == sorted(keys), "delivery order differs from (createdAt, id) order: " + \
        str([(k, nxt) for k, nxt in zip(keys, keys[1:]) if k > nxt][:2])


def test_concurrent_consumers_never_skip_while_producers_push(broker):
    """Pushers and consumers run at the same time on one partition: a consumer whose cursor passed
    a message must never see an earlier-ordered message commit behind it (it would be skipped)."""
    queue, partition = unique_name("commit-order"), "hot"
    pushers, per_pusher, consumers = 4, 200, 2
    total = pushers * per_pusher
    delivered = [[] for _ in range(consumers)]
    deadline = Deadline(60)

    def pusher(index):
        produce(broker, queue, partition, index, per_pusher, batch_sizes=(1, 2, 1, 4))

    def consumer(index):
        with broker.client() as c:
            while sum(len(d) for d in delivered) < total and not deadline.expired():
                msgs = c.pop_messages(queue, partition=partition, batch=7, wait=True, timeout_ms=300)
                if not msgs:
                    continue
                delivered[index].extend(msgs)
                resp = c.ack_batch([ack_item(m) for m in msgs])
                assert resp.status == 200 and all(r["success"] for r in resp.body), resp

    def role(index):
        return pusher(index) if index < pushers else consumer(index - pushers)

    run_workers(pushers + consumers, role, timeout=90)
    everything = [m for d in delivered for m in d]
    txids = [m["transactionId"] for m in everything]
    assert len(txids) == len(set(txids)), "a message was delivered twice without a lease expiry or failure"
    expected = {f"p{p}-{s}" for p in range(pushers) for s in range(per_pusher)}
    assert set(txids) == expected, f"missing: {sorted(expected - set(txids))[:20]}"
    for own in delivered:
        assert_each_producer_in_order(own, pushers, per_pusher, complete=False)
