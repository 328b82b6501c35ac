"""POST /api/v1/transaction: acks and pushes all or nothing
(docs/api-extensions.md, docs/procedures.md run_transaction)."""
import time
import uuid

from harness import ParkedPop, ack_item, free_port, poll_until, schema, unique_name
from harness.assertions import assert_json_error, assert_no_content, assert_uuid, new_txid

TX = "/api/v1/transaction"


def pop_one(client, queue, **kw):
    return poll_until(lambda: client.pop_messages(queue, **kw), timeout=10, interval=0.05, what=f"a message on {queue}")[0]


def ack_op(message, **extra):
    op = {"type": "ack", "transactionId": message["transactionId"], "partitionId": message["partitionId"]}
    op.update(extra)
    return op


def stored_txids(pg, queue):
    return sorted(m["transaction_id"] for m in schema.stored_messages(pg, [queue]))


def test_ack_and_push_hand_off_atomically(client, pg):
    source, rendered, audit = unique_name("tx-in"), unique_name("tx-out"), unique_name("tx-audit")
    client.push_one(source, {"invoice": 1001}, transaction_id="inv-1001")
    msg = pop_one(client, source)
    audit_txid = new_txid()

    resp = client.post(TX, {
        "operations": [
            ack_op(msg),
            {"type": "push", "items": [
                {"queue": rendered, "partition": "acct-7", "payload": {"pdf": "s3://x"}},
                {"queue": audit, "payload": {"event": "rendered"}, "transactionId": audit_txid},
            ]},
        ],
        "requiredLeases": [msg["leaseId"]],
    })
    assert resp.status == 200, resp
    body = resp.body
    assert body["success"] is True, body
    assert_uuid(body["transactionId"], "transactionId")
    ack_result, rendered_result, audit_result = body["results"]
    assert ack_result == {"index": 0, "type": "ack", "success": True, "transactionId": "inv-1001",
                          "error": None, "dlq": False}
    assert rendered_result["index"] == 1 and rendered_result["type"] == "push" and rendered_result["success"] is True
    assert rendered_result["queueName"] == rendered
    assert_uuid(rendered_result["messageId"], "messageId")
    assert_uuid(rendered_result["partitionId"], "partitionId")
    assert rendered_result["transactionId"], "a missing transactionId is minted"
    assert audit_result["index"] == 2 and audit_result["transactionId"] == audit_txid
    assert audit_result["queueName"] == audit

    # The input is consumed, the outputs are immediately visible.
    assert_no_content(client.pop(source))
    out = client.pop_messages(rendered, partition="acct-7")
    assert [(m["id"], m["transactionId"], m["data"]) for m in out] == [
        (rendered_result["messageId"], rendered_result["transactionId"], {"pdf": "s3://x"})]
    assert [m["data"] for m in client.pop_messages(audit)] == [{"event": "rendered"}]


def test_a_duplicate_transaction_id_aborts_everything(client, pg):
    source, out = unique_name("tx-dup-in"), unique_name("tx-dup-out")
    client.push_one(source, {"n": 1}, transaction_id="in-1")
    taken = new_txid("taken")
    assert client.push_one(out, {"first": True}, transaction_id=taken).body[0]["status"] == "queued"
    msg = pop_one(client, source)
    fresh = new_txid("fresh")

    resp = client.post(TX, {"operations": [
        ack_op(msg, leaseId=msg["leaseId"]),
        {"type": "push", "items": [{"queue": out, "payload": {"n": 2}, "transactionId": fresh},
                                   {"queue": out, "payload": {"dup": True}, "transactionId": taken}]},
    ]})
    assert resp.status == 200, resp
    assert resp.body["success"] is False, resp.body
    assert f"duplicate transactionId {taken}" in resp.body["error"], resp.body
    # Nothing was kept: the fresh item is not stored and the ack did not release the lease.
    assert stored_txids(pg, out) == [taken]
    renewed = client.extend_lease(msg["leaseId"], 30)
    assert renewed.status == 200 and renewed.body["success"] is True, renewed

    # The same hand-off without the duplicate goes through.
    resp = client.post(TX, {"operations": [
        ack_op(msg, leaseId=msg["leaseId"]),
        {"type": "push", "items": [{"queue": out, "payload": {"n": 2}, "transactionId": fresh}]},
    ]})
    assert resp.body["success"] is True, resp.body
    assert stored_txids(pg, out) == sorted([taken, fresh])


def test_an_unknown_required_lease_fails_the_transaction(client, pg):
    out = unique_name("tx-lease")
    unknown = str(uuid.uuid4())
    resp = client.post(TX, {"operations": [{"type": "push", "items": [{"queue": out, "transactionId": "x1"}]}],
                            "requiredLeases": [unknown]})
    assert resp.status == 200, resp
    assert resp.body["success"] is False
    assert resp.body["error"] == f"Required lease {unknown} is not held"
    assert schema.message_count(pg, out) == 0


def test_a_released_lease_is_no_longer_held(client):
    source = unique_name("tx-released")
    client.push_one(source, {"n": 1})
    msg = pop_one(client, source)
    assert client.ack_batch([ack_item(msg)]).body[0]["success"] is True
    resp = client.post(TX, {"operations": [ack_op(msg)], "requiredLeases": [msg["leaseId"]]})
    assert resp.body["success"] is False
    assert resp.body["error"] == f"Required lease {msg['leaseId']} is not held"


def test_business_failures_are_200_with_success_false(client):
    unknown_message = client.post(TX, {"operations": [
        {"type": "ack", "transactionId": "nope", "partitionId": str(uuid.uuid4())}]})
    assert unknown_message.status == 200
    assert unknown_message.body["success"] is False
    assert unknown_message.body["error"] == "ACK operation failed: Message not found"

    unknown_type = client.post(TX, {"operations": [{"type": "frobnicate"}]})
    assert unknown_type.status == 200
    assert unknown_type.body["success"] is False
    assert unknown_type.body["error"] == "Unknown operation type: frobnicate"


def test_a_failed_ack_dead_letters_at_once(client, pg):
    source = unique_name("tx-dlq")
    assert client.configure(source, {"retryLimit": 5}).status == 200
    client.push_one(source, {"n": 1}, transaction_id="bad-1")
    msg = pop_one(client, source)
    resp = client.post(TX, {"operations": [ack_op(msg, status="failed", error="render crashed")]})
    assert resp.body["success"] is True, resp.body
    assert resp.body["results"][0]["dlq"] is True
    entries = schema.dlq_entries(pg, source)
    assert [(e["transaction_id"], e["error"], e["retry_count"]) for e in entries] == [("bad-1", "render crashed", 0)]
    assert_no_content(client.pop(source))


def test_a_future_deliver_at_is_scheduled_not_delivered(client):
    queue = unique_name("tx-timer")
    resp = client.post(TX, {"operations": [{"type": "push", "items": [
        {"queue": queue, "payload": {"later": True}, "deliverAt": "2999-01-01T00:00:00Z"},
        {"queue": queue, "payload": {"now": True}}]}]})
    assert resp.status == 200 and resp.body["success"] is True, resp
    assert [r["success"] for r in resp.body["results"]] == [True, True]
    assert [m["data"] for m in client.pop_messages(queue, batch=10)] == [{"now": True}]


def test_validation_failures_are_400(client):
    assert_json_error(client.post(TX, data=b""), 400, "Empty request body")
    assert_json_error(client.post(TX, data=b'{"operations": ['), 400, prefix="Invalid JSON: ")
    assert_json_error(client.post(TX, {"requiredLeases": []}), 400, "operations array required")
    assert_json_error(client.post(TX, {"operations": {"type": "ack"}}), 400, "operations array required")
    assert_json_error(client.post(TX, {"operations": []}), 400, "operations array cannot be empty")
    assert_json_error(client.post(TX, {"operations": [{"type": "ack"}], "requiredLeases": "x"}), 400,
                      "requiredLeases must be an array of lease ids")
    assert_json_error(client.post(TX, {"operations": [{"type": "push", "items": [{"payload": 1}]}]}), 400,
                      "push item 0: Queue must be a string")


def test_a_transaction_push_wakes_a_parked_pop(broker_factory):
    # Re-checks far apart: only a wake-up can return the pop quickly.
    slow = broker_factory(name="tx-wake", env={"POP_WAIT_INITIAL_INTERVAL_MS": 30000,
                                               "POP_WAIT_MAX_INTERVAL_MS": 30000})
    queue = unique_name("tx-wake")
    # Parked first: a message found by the pop's first check proves nothing.
    pop = ParkedPop(slow, queue, timeout_ms=15000).wait_parked()
    assert pop.ended is None
    with slow.client() as c:
        pushed_at = time.monotonic()
        resp = c.post(TX, {"operations": [{"type": "push", "items": [{"queue": queue, "payload": {"wake": 1}}]}]})
        assert resp.body["success"] is True, resp.body
    popped = pop.result(timeout=20)
    assert popped.status == 200, popped
    assert [m["data"] for m in popped.body["messages"]] == [{"wake": 1}]
    assert pop.ended - pushed_at < 3.0, "the parked pop was not woken by the transaction"


def test_an_unreachable_database_is_503(broker_factory):
    # Nothing listens on this port: every database call fails as a connection error.
    lost = broker_factory(name="tx-nodb", start=False, env={"PG_PORT": free_port(), "DB_CONNECTION_TIMEOUT": 500})
    lost.start(require_db=False)
    with lost.client() as c:
        resp = c.post(TX, {"operations": [{"type": "push", "items": [{"queue": unique_name("tx-nodb")}]}]})
    assert_json_error(resp, 503, "database unavailable")
