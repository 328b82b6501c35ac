"""Brokers hold no authoritative state (docs/operations-ha.md): a pop taken from one broker is
acked on another, and deduplication stays exact across replicas with no coordination."""
import threading

from harness import ack_item, run_workers, schema, unique_name


def test_a_pop_taken_from_one_broker_is_acked_on_the_other(mesh_factory, ha_db):
    a, b = mesh_factory(2)
    queue = unique_name("ha-cross-ack")
    with a.client() as ca, b.client() as cb:
        pushed = ca.push([{"queue": queue, "partition": "p", "payload": {"n": n}, "transactionId": f"x{n}"}
                          for n in range(3)])
        assert pushed.status == 201 and [r["status"] for r in pushed.body] == ["queued"] * 3, pushed
        popped = ca.pop_messages(queue, partition="p", batch=3)
        assert [m["data"]["n"] for m in popped] == [0, 1, 2]
        # While A holds the lease nothing is handed out again, on either broker.
        assert cb.pop_messages(queue, partition="p", batch=3) == []

        acked = cb.ack_batch([ack_item(m) for m in popped])
        assert acked.status == 200, acked
        assert all(r.get("success") for r in acked.body), acked.body

        # Acked for good: neither broker redelivers, and a consumer group starting now still reads them.
        assert ca.pop_messages(queue, partition="p", batch=3) == []
        assert cb.pop_messages(queue, partition="p", batch=3) == []
        group = cb.pop_messages(queue, partition="p", batch=3, consumer_group="late-reader",
                                subscription_mode="all")
        assert [m["data"]["n"] for m in group] == [0, 1, 2]
        # ... and the group's lease, taken on B, is acked on A.
        group_acked = ca.ack_batch([ack_item(m) for m in group], consumer_group="late-reader")
        assert group_acked.status == 200 and all(r.get("success") for r in group_acked.body), group_acked
        assert cb.pop_messages(queue, partition="p", batch=3, consumer_group="late-reader") == []
    assert schema.message_count(ha_db, queue) == 3


def test_the_same_transaction_id_pushed_to_both_brokers_at_once_is_stored_once(mesh_factory, ha_db):
    brokers = mesh_factory(2)
    queue, rounds = unique_name("ha-dedup"), 40
    # Both writers release each round's push together, so every key really races across brokers.
    round_start = threading.Barrier(2, timeout=30)

    def push_every_round(index):
        outcomes = []
        with brokers[index].client() as c:
            for r in range(rounds):
                round_start.wait()
                resp = c.push_one(queue, {"writer": index, "round": r}, partition=f"p{r % 3}",
                                  transaction_id=f"race-{r}")
                assert resp.status == 201, resp
                outcomes.append(resp.body[0])
        return outcomes

    per_broker = run_workers(2, push_every_round, timeout=120)
    for r in range(rounds):
        first, second = per_broker[0][r], per_broker[1][r]
        assert sorted([first["status"], second["status"]]) == ["duplicate", "queued"], (first, second)
        assert first["message_id"] == second["message_id"], (first, second)
    stored = schema.stored_messages(ha_db, [queue])
    assert sorted(row["transaction_id"] for row in stored) == sorted(f"race-{r}" for r in range(rounds))
