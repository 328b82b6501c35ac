"""Deduplication by (queue, partition, transactionId) (docs/procedures.md push_messages)."""
from harness import run_workers, schema, unique_name
from harness.assertions import new_txid


def test_duplicate_inside_one_request_reports_the_first_items_message_id(client, pg):
    queue, txid = unique_name("dedup-batch"), new_txid()
    resp = client.push([
        {"queue": queue, "payload": {"v": "first"}, "transactionId": txid},
        {"queue": queue, "payload": {"v": "other"}, "transactionId": new_txid()},
        {"queue": queue, "payload": {"v": "second"}, "transactionId": txid},
    ])
    assert resp.status == 201, resp
    statuses = [r["status"] for r in resp.body]
    assert statuses == ["queued", "queued", "duplicate"]
    assert resp.body[2]["message_id"] == resp.body[0]["message_id"]
    assert resp.body[2]["transaction_id"] == resp.body[2]["transactionId"] == txid
    assert resp.body[2]["index"] == 2
    assert schema.message_count(pg, queue) == 2
    msgs = client.pop_messages(queue, batch=10)
    assert [m["data"]["v"] for m in msgs] == ["first", "other"]


def test_duplicate_across_requests_keeps_the_original(client, pg):
    queue, txid = unique_name("dedup-calls"), new_txid()
    first = client.push_one(queue, {"v": 1}, partition="p", transaction_id=txid)
    assert first.body[0]["status"] == "queued", first
    again = client.push_one(queue, {"v": 2}, partition="p", transaction_id=txid)
    assert again.status == 201, again
    assert again.body[0]["status"] == "duplicate"
    assert again.body[0]["message_id"] == first.body[0]["message_id"]
    assert again.body[0]["partition_id"] == first.body[0]["partition_id"]
    assert schema.message_count(pg, queue) == 1
    msgs = client.pop_messages(queue, partition="p", batch=10)
    assert [m["data"] for m in msgs] == [{"v": 1}]


def test_same_transaction_id_in_another_partition_is_a_new_message(client, pg):
    queue, txid = unique_name("dedup-part"), new_txid()
    resp = client.push([{"queue": queue, "partition": "a", "payload": 1, "transactionId": txid},
                        {"queue": queue, "partition": "b", "payload": 2, "transactionId": txid}])
    assert [r["status"] for r in resp.body] == ["queued", "queued"], resp
    assert resp.body[0]["message_id"] != resp.body[1]["message_id"]
    assert schema.message_count(pg, queue) == 2


def test_concurrent_pushes_of_one_transaction_id_have_exactly_one_winner(broker, pg):
    queue, txid = unique_name("dedup-race"), new_txid()
    rounds = 5

    def push_same(index):
        with broker.client() as c:
            results = []
            for r in range(rounds):
                resp = c.push_one(queue, {"writer": index, "round": r}, transaction_id=f"{txid}-{r}")
                assert resp.status == 201, resp
                results.append(resp.body[0])
            return results

    per_worker = run_workers(4, push_same, timeout=60)
    for r in range(rounds):
        outcomes = [results[r] for results in per_worker]
        queued = [o for o in outcomes if o["status"] == "queued"]
        assert len(queued) == 1, f"round {r}: {outcomes}"
        assert all(o["status"] == "duplicate" for o in outcomes if o is not queued[0]), outcomes
        assert {o["message_id"] for o in outcomes} == {queued[0]["message_id"]}
    assert schema.message_count(pg, queue) == rounds
