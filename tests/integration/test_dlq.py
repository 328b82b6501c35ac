"""Failed acks, retries and the dead-letter queue (docs/procedures.md ack_messages): checked in queen.dlq itself."""
from harness import QUEUE_MODE, poll_until, schema, unique_name
from harness.assertions import assert_no_content, new_txid


def pop_one(client, queue, group=None):
    return poll_until(lambda: client.pop_messages(queue, consumer_group=group), timeout=10, interval=0.05,
                      what=f"redelivery on {queue}")


def test_failed_acks_reach_the_dlq_after_retry_limit(client, pg):
    retry_limit = 2
    queue, txid = unique_name("dlq"), new_txid()
    assert client.configure(queue, {"retryLimit": retry_limit, "retryDelay": 0, "leaseTime": 30}).status == 200
    client.push_one(queue, {"order": 7}, transaction_id=txid)

    # retryLimit = N: the batch is attempted N + 1 times; the last failure dead-letters it.
    for attempt in range(retry_limit + 1):
        msg = pop_one(client, queue)[0]
        assert msg["transactionId"] == txid
        assert msg["retryCount"] == attempt
        resp = client.ack(txid, msg["partitionId"], lease_id=msg["leaseId"], status="failed",
                          error=f"smtp 451 (attempt {attempt})")
        assert resp.status == 200, resp
        result = resp.body[0]
        assert result["success"] is True, result
        assert result["dlq"] is (attempt == retry_limit), (attempt, result)
        if attempt < retry_limit:
            assert schema.dlq_entries(pg, queue) == [], f"dead-lettered after attempt {attempt}"

    assert_no_content(client.pop(queue))
    entries = schema.dlq_entries(pg, queue)
    assert len(entries) == 1, entries
    entry = entries[0]
    assert entry["transaction_id"] == txid
    assert entry["consumer_group"] == QUEUE_MODE
    assert entry["error"] == f"smtp 451 (attempt {retry_limit})"
    assert entry["retry_count"] == retry_limit


def test_status_dlq_dead_letters_at_once_with_the_default_reason(client, pg):
    queue, txid = unique_name("dlq-now"), new_txid()
    assert client.configure(queue, {"retryLimit": 5, "retryDelay": 0}).status == 200
    client.push_one(queue, {"x": 1}, transaction_id=txid)
    msg = pop_one(client, queue)[0]
    resp = client.ack(txid, msg["partitionId"], lease_id=msg["leaseId"], status="dlq")
    assert resp.body[0]["success"] is True and resp.body[0]["dlq"] is True, resp.body
    entries = schema.dlq_entries(pg, queue)
    assert [e["transaction_id"] for e in entries] == [txid]
    assert isinstance(entries[0]["error"], str) and entries[0]["error"]
    assert_no_content(client.pop(queue))


def test_retry_limit_zero_dead_letters_the_first_failure(client, pg):
    queue, txid = unique_name("dlq-zero"), new_txid()
    assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    client.push_one(queue, {"x": 1}, transaction_id=txid)
    msg = pop_one(client, queue)[0]
    resp = client.ack(txid, msg["partitionId"], lease_id=msg["leaseId"], status="failed")
    assert resp.body[0]["dlq"] is True, resp.body
    entries = schema.dlq_entries(pg, queue)
    assert len(entries) == 1
    assert entries[0]["error"] == "Retries exhausted"


def test_the_dlq_is_per_consumer_group(client, pg):
    queue, txid = unique_name("dlq-group"), new_txid()
    assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    client.push_one(queue, {"x": 1}, transaction_id=txid)
    msg = pop_one(client, queue, group="fails")[0]
    resp = client.ack(txid, msg["partitionId"], lease_id=msg["leaseId"], status="failed",
                      error="bad", consumer_group="fails")
    assert resp.body[0]["dlq"] is True, resp.body
    entries = schema.dlq_entries(pg, queue)
    assert [(e["transaction_id"], e["consumer_group"]) for e in entries] == [(txid, "fails")]
    other = pop_one(client, queue, group="healthy")
    assert [m["transactionId"] for m in other] == [txid]
