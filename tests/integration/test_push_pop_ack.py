"""Push, pop and ack round trips and their exact wire shapes."""
import uuid

from harness import QUEUE_MODE, ack_item, unique_name
from harness.assertions import (MICROSECOND_TS_RE, assert_json_error, assert_no_content, assert_uuid,
                                new_txid)

PUSH_ITEM_KEYS = {"index", "status", "transaction_id", "transactionId", "message_id", "messageId",
                  "partition_id", "partitionId", "queue", "queueName", "partition"}
POP_MESSAGE_KEYS = {"id", "transactionId", "traceId", "data", "producerSub", "createdAt", "partitionId",
                    "partition", "leaseId", "consumerGroup", "queue", "retryCount"}
ACK_RESULT_KEYS = {"index", "transactionId", "success", "error", "queueName", "partitionName",
                   "leaseReleased", "dlq"}


def test_push_pop_ack_round_trip_with_exact_field_names(client):
    queue, partition, txid = unique_name("rt"), "acct-7", new_txid()
    trace_id = str(uuid.uuid4())
    payload = {"amount": 12, "currency": "EUR", "nested": {"list": [1, 2, None]}}

    pushed = client.push([{"queue": queue, "partition": partition, "payload": payload,
                           "transactionId": txid, "traceId": trace_id}])
    assert pushed.status == 201, pushed
    assert isinstance(pushed.body, list) and len(pushed.body) == 1
    item = pushed.body[0]
    assert PUSH_ITEM_KEYS <= set(item), f"missing push item keys: {PUSH_ITEM_KEYS - set(item)}"
    assert item["index"] == 0
    assert item["status"] == "queued"
    assert item["transaction_id"] == item["transactionId"] == txid
    assert_uuid(item["message_id"], "message_id")
    assert item["messageId"] == item["message_id"]
    assert_uuid(item["partition_id"], "partition_id")
    assert item["partitionId"] == item["partition_id"]
    assert item["queue"] == item["queueName"] == queue
    assert item["partition"] == partition
    assert item["trace_id"] == trace_id

    popped = client.pop(queue, partition=partition, batch=10)
    assert popped.status == 200, popped
    body = popped.body
    assert body["success"] is True
    assert body["queue"] == queue
    assert body["partition"] == partition
    assert body["partitionId"] == item["partition_id"]
    assert_uuid(body["leaseId"], "leaseId")
    assert body["consumerGroup"] == QUEUE_MODE
    assert body["partitionsClaimed"] == 1
    assert len(body["messages"]) == 1
    msg = body["messages"][0]
    assert POP_MESSAGE_KEYS <= set(msg), f"missing pop message keys: {POP_MESSAGE_KEYS - set(msg)}"
    assert msg["id"] == item["message_id"]
    assert msg["transactionId"] == txid
    assert msg["traceId"] == trace_id
    assert msg["data"] == payload
    assert msg["producerSub"] is None
    assert MICROSECOND_TS_RE.match(msg["createdAt"]), f"createdAt needs microseconds: {msg['createdAt']!r}"
    assert msg["partitionId"] == item["partition_id"]
    assert msg["partition"] == partition
    assert msg["leaseId"] == body["leaseId"]
    assert msg["consumerGroup"] == QUEUE_MODE
    assert msg["queue"] == queue
    assert msg["retryCount"] == 0

    acked = client.ack(txid, msg["partitionId"], lease_id=msg["leaseId"], status="completed")
    assert acked.status == 200, acked
    assert isinstance(acked.body, list) and len(acked.body) == 1, acked.body
    result = acked.body[0]
    assert ACK_RESULT_KEYS <= set(result), f"missing ack keys: {ACK_RESULT_KEYS - set(result)}"
    assert result["success"] is True
    assert result["error"] is None
    assert result["transactionId"] == txid
    assert result["queueName"] == queue
    assert result["partitionName"] == partition
    assert result["leaseReleased"] is True
    assert result["dlq"] is False

    assert_no_content(client.pop(queue, partition=partition, batch=10))


def test_pop_right_after_push_sees_the_message_on_the_wildcard_route(client):
    queue = unique_name("ryw")
    for n in range(5):
        pushed = client.push_one(queue, {"n": n})
        assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
        # Read-your-writes: no waiting, no retry; the pushed message must be there now.
        msgs = client.pop_messages(queue, wait=False)
        assert [m["data"] for m in msgs] == [{"n": n}]
        assert msgs[0]["partition"] == "Default"
        acked = client.ack_batch([ack_item(m) for m in msgs])
        assert acked.status == 200 and acked.body[0]["success"] is True, acked


def test_payloads_are_stored_verbatim_in_push_order(client):
    queue = unique_name("payload")
    payloads = [None, {}, [], "text", 42, 3.5, True, {"deep": {"a": [1, {"b": None}]}}]
    items = [{"queue": queue, "payload": p, "transactionId": new_txid()} for p in payloads]
    items.append({"queue": queue, "transactionId": new_txid()})  # no payload: stored as {}
    pushed = client.push(items)
    assert pushed.status == 201, pushed
    assert [r["status"] for r in pushed.body] == ["queued"] * len(items)
    assert [r["index"] for r in pushed.body] == list(range(len(items)))
    msgs = client.pop_messages(queue, batch=100)
    assert [m["data"] for m in msgs] == payloads + [{}]
    assert [m["transactionId"] for m in msgs] == [i["transactionId"] for i in items]


def test_server_mints_a_transaction_id_when_absent(client):
    queue = unique_name("mint")
    pushed = client.push([{"queue": queue, "payload": 1}, {"queue": queue, "payload": 2, "transactionId": ""}])
    assert pushed.status == 201, pushed
    minted = [r["transactionId"] for r in pushed.body]
    assert all(isinstance(t, str) and t for t in minted)
    assert minted[0] != minted[1]
    assert [r["status"] for r in pushed.body] == ["queued", "queued"]


def test_empty_items_array_answers_201_with_an_empty_array(client):
    resp = client.push([])
    assert resp.status == 201, resp
    assert resp.body == []


def test_batch_ack_answers_one_result_per_item_in_request_order(client):
    queue = unique_name("batchack")
    txids = [new_txid() for _ in range(4)]
    pushed = client.push([{"queue": queue, "payload": {"i": i}, "transactionId": t} for i, t in enumerate(txids)])
    assert pushed.status == 201, pushed
    msgs = client.pop_messages(queue, batch=4)
    assert [m["transactionId"] for m in msgs] == txids
    acks = [ack_item(m) for m in reversed(msgs)]
    resp = client.ack_batch(acks)
    assert resp.status == 200, resp
    assert isinstance(resp.body, list) and len(resp.body) == 4
    assert [r["transactionId"] for r in resp.body] == list(reversed(txids))
    assert all(r["success"] is True and r["error"] is None for r in resp.body), resp.body
    assert_no_content(client.pop(queue, batch=4))


def test_empty_batch_ack_answers_an_empty_array(client):
    resp = client.ack_batch([])
    assert resp.status == 200, resp
    assert resp.body == []


def test_ack_business_failures_are_reported_inside_the_item(client):
    queue = unique_name("ackfail")
    pushed = client.push_one(queue, {"x": 1}, transaction_id=new_txid())
    partition_id = pushed.body[0]["partition_id"]
    msgs = client.pop_messages(queue)
    assert len(msgs) == 1

    unknown = client.ack(new_txid("missing"), partition_id, lease_id=msgs[0]["leaseId"])
    assert unknown.status == 200, unknown
    assert len(unknown.body) == 1
    assert unknown.body[0]["success"] is False
    assert unknown.body[0]["error"] == "Message not found"

    wrong_lease = client.ack(msgs[0]["transactionId"], partition_id, lease_id=str(uuid.uuid4()))
    assert wrong_lease.status == 200, wrong_lease
    assert wrong_lease.body[0]["success"] is False
    assert wrong_lease.body[0]["error"] == "Invalid or expired lease"

    # The real lease still works: failed validations changed nothing.
    good = client.ack(msgs[0]["transactionId"], partition_id, lease_id=msgs[0]["leaseId"])
    assert good.body[0]["success"] is True, good.body


def test_auto_ack_consumes_without_a_lease(client):
    queue = unique_name("autoack")
    client.push([{"queue": queue, "payload": {"i": i}} for i in range(3)])
    popped = client.pop(queue, batch=10, auto_ack=True)
    assert popped.status == 200, popped
    assert popped.body["leaseId"] == ""
    assert [m["data"] for m in popped.body["messages"]] == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert all(m["leaseId"] == "" for m in popped.body["messages"])
    assert_no_content(client.pop(queue, batch=10))


def test_batch_caps_the_number_of_messages(client):
    queue = unique_name("batch")
    client.push([{"queue": queue, "payload": {"i": i}} for i in range(5)])
    first = client.pop_messages(queue, batch=2)
    assert [m["data"]["i"] for m in first] == [0, 1]
    assert client.ack_batch([ack_item(m) for m in first]).status == 200
    rest = client.pop_messages(queue, batch=10)
    assert [m["data"]["i"] for m in rest] == [2, 3, 4]


def test_pop_of_unknown_queue_or_partition_is_204_without_body(client):
    assert_no_content(client.pop(unique_name("nothing-here")))
    queue = unique_name("known")
    client.push_one(queue, {"x": 1})
    assert_no_content(client.pop(queue, partition="no-such-partition"))


def test_pop_path_segments_are_percent_decoded(client):
    queue, partition = unique_name("dec"), "part with space"
    client.push_one(queue, {"x": 1}, partition=partition)
    msgs = client.pop_messages(queue, partition=partition)  # sent as part%20with%20space
    assert [m["partition"] for m in msgs] == [partition]


def test_ack_requires_transaction_and_partition_ids(client):
    assert_json_error(client.post("/api/v1/ack", {"partitionId": str(uuid.uuid4())}), 400,
                      message="transactionId is required")
    assert_json_error(client.post("/api/v1/ack", {"transactionId": "t"}), 400,
                      message="partitionId is required to ensure message uniqueness")
    assert_json_error(client.post("/api/v1/ack/batch", {"acknowledgments": "x"}), 400,
                      message="acknowledgments array is required")
    assert_json_error(client.post("/api/v1/ack/batch", {"acknowledgments": [{"transactionId": "t"}]}), 400)
