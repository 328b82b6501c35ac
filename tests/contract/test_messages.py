"""Messages: list, detail (decrypted payload), delete, retry, move to the DLQ, queue clear and partitions."""
from harness import QUEUE_MODE, unique_name
from harness.api import quote

from msg_support import MILLIS, dead_letter, popped, pushed

MISSING_PARTITION = "00000000-0000-7000-8000-000000000000"
LIST_KEYS = {"id", "transactionId", "partitionId", "queuePath", "queue", "partition", "namespace", "task", "status",
             "queueStatus", "busStatus", "traceId", "producerSub", "queuePriority", "createdAt", "leaseExpiresAt"}
DETAIL_KEYS = LIST_KEYS - {"queuePriority"} | {"payload", "isEncrypted", "errorMessage", "retryCount", "queueConfig",
                                               "mode", "consumerGroups"}


def message_path(partition_id, transaction_id, suffix=""):
    return f"/api/v1/messages/{quote(partition_id)}/{quote(transaction_id)}{suffix}"


def test_list_shape_filters_and_status(client):
    queue = unique_name("msgs")
    assert client.configure(queue, namespace="billing", task="invoices").status == 200
    first = pushed(client, queue, {"n": 1}, "m-1", partition="p1")
    pushed(client, queue, {"n": 2}, "m-2", partition="p1")
    pushed(client, queue, {"n": 3}, "m-3", partition="p2")
    msg = popped(client, queue, partition="p1")
    assert client.ack(msg["transactionId"], msg["partitionId"], lease_id=msg["leaseId"]).status == 200

    resp = client.get("/api/v1/messages", params={"queue": queue})
    assert resp.status == 200 and set(resp.body) == {"messages", "mode"}
    assert resp.body["mode"] == {"hasQueueMode": True, "busGroupsCount": 0, "type": "queue"}
    listed = resp.body["messages"]
    assert [m["transactionId"] for m in listed] == ["m-3", "m-2", "m-1"]
    for m in listed:
        assert set(m) == LIST_KEYS, set(m) ^ LIST_KEYS
        assert MILLIS.match(m["createdAt"]) and m["queue"] == queue
        assert m["namespace"] == "billing" and m["task"] == "invoices" and m["queuePriority"] == 0
        assert set(m["busStatus"]) == {"consumedBy", "totalGroups"}
    done = listed[2]
    assert (done["id"], done["partitionId"], done["queuePath"], done["status"], done["queueStatus"]) == \
        (first["messageId"], first["partitionId"], f"{queue}/p1", "completed", "completed")
    assert listed[1]["status"] == "pending" and listed[1]["leaseExpiresAt"] is None

    by_partition = client.get("/api/v1/messages", params={"queue": queue, "partition": "p2"}).body["messages"]
    assert [m["transactionId"] for m in by_partition] == ["m-3"]
    by_status = client.get("/api/v1/messages", params={"queue": queue, "status": "completed"}).body["messages"]
    assert [m["transactionId"] for m in by_status] == ["m-1"]
    by_ns = client.get("/api/v1/messages", params={"ns": "billing", "task": "invoices", "limit": 2, "offset": 1})
    assert [m["transactionId"] for m in by_ns.body["messages"]] == ["m-2", "m-1"]
    old = client.get("/api/v1/messages", params={"queue": queue, "from": "2020-01-01T00:00:00Z",
                                                 "to": "2020-01-01T01:00:00.000Z"})
    assert old.body["messages"] == []
    bad = client.get("/api/v1/messages", params={"status": "weird"})
    assert bad.status == 400 and set(bad.body) == {"error"}


def test_detail_has_the_payload_and_delivery_state(client):
    queue = unique_name("msgd")
    pushed(client, queue, {"amount": 12}, "inv/1001 x")  # percent-encoded in the path
    msg = popped(client, queue)
    resp = client.get(message_path(msg["partitionId"], "inv/1001 x"))
    assert resp.status == 200, resp
    body = resp.body
    assert set(body) >= DETAIL_KEYS, DETAIL_KEYS - set(body)
    assert (body["payload"], body["status"], body["isEncrypted"], body["errorMessage"], body["retryCount"]) == \
        ({"amount": 12}, "processing", False, None, None)
    assert MILLIS.match(body["leaseExpiresAt"])
    assert set(body["queueConfig"]) == {"leaseTime", "retryLimit", "retryDelay", "ttl", "priority"}
    assert body["consumerGroups"] == [{"name": QUEUE_MODE, "consumed": False, "leaseExpiresAt": body["leaseExpiresAt"]}]
    assert body["mode"]["type"] == "queue"


def test_detail_of_unknown_or_malformed_keys_is_404(client):
    for path in (message_path(MISSING_PARTITION, "nope"), message_path("not-a-uuid", "nope")):
        resp = client.get(path)
        assert (resp.status, resp.body) == (404, {"error": "Message not found"})


def test_delete_removes_message_dlq_entry_and_dedup_memory(client):
    queue = unique_name("msgx")
    msg = dead_letter(client, queue, "del-1")
    resp = client.delete(message_path(msg["partitionId"], "del-1"))
    assert (resp.status, resp.body) == (200, {"success": True, "partitionId": msg["partitionId"],
                                              "transactionId": "del-1", "message": "Message deleted successfully"})
    assert client.get(message_path(msg["partitionId"], "del-1")).status == 404
    assert client.dlq(queue=queue).body["total"] == 0
    again = client.push_one(queue, {"n": 2}, transaction_id="del-1")
    assert again.body[0]["status"] == "queued", "the transactionId is accepted again once deleted"
    missing = client.delete(message_path(MISSING_PARTITION, "nope"))
    assert (missing.status, missing.body) == (200, {"success": False, "partitionId": MISSING_PARTITION,
                                                    "transactionId": "nope", "message": "Message not found"})
    assert client.delete(message_path("not-a-uuid", "nope")).body["success"] is False


def test_retry_requeues_a_dead_message_as_a_new_one(client):
    queue = unique_name("msgr")
    msg = dead_letter(client, queue, "r-1", payload={"n": 5})
    resp = client.request("POST", message_path(msg["partitionId"], "r-1", "/retry"))  # no body, as Python sends it
    assert resp.status == 200 and set(resp.body) == {"success", "messageId"} and resp.body["success"] is True
    again = popped(client, queue)
    assert again["id"] == resp.body["messageId"]
    assert again["data"] == {"n": 5} and again["transactionId"].startswith("r-1~requeue~")
    assert client.dlq(queue=queue).body["total"] == 0
    none_left = client.request("POST", message_path(msg["partitionId"], "r-1", "/retry"))
    assert none_left.status == 404 and set(none_left.body) == {"error"}


def test_move_to_dlq(client):
    queue = unique_name("msgq")
    sent = pushed(client, queue, {"n": 1}, "q-1")
    partition_id = sent["partitionId"]
    resp = client.request("POST", message_path(partition_id, "q-1", "/dlq"))
    assert (resp.status, resp.body) == (200, {"success": True, "partitionId": partition_id, "transactionId": "q-1",
                                              "consumerGroup": QUEUE_MODE})
    entry = client.dlq(queue=queue).body["messages"][0]
    assert (entry["transactionId"], entry["errorMessage"]) == ("q-1", "Moved to the DLQ by an operator")
    with_group = client.post(message_path(partition_id, "q-1", "/dlq"), {"consumerGroup": "g1", "errorMessage": "bad"})
    assert with_group.status == 200 and with_group.body["consumerGroup"] == "g1"
    assert client.post(message_path(MISSING_PARTITION, "q-1", "/dlq"), {}).status == 404


def test_clear_queue_and_partitions(client):
    queue = unique_name("msgc")
    for i, partition in enumerate(("p1", "p1", "p2")):
        pushed(client, queue, {"i": i}, f"c-{i}", partition=partition)
    parts = client.get("/api/v1/resources/partitions", params={"queue": queue})
    assert parts.status == 200 and set(parts.body) == {"partitions"}
    assert [(p["name"], p["queue"], p["messages"]) for p in parts.body["partitions"]] == \
        [("p1", queue, {"total": 2, "pending": 2}), ("p2", queue, {"total": 1, "pending": 1})]
    for p in parts.body["partitions"]:
        assert set(p) == {"id", "name", "queue", "createdAt", "messages"} and MILLIS.match(p["createdAt"])

    one = client.delete(f"/api/v1/queues/{quote(queue)}/clear", params={"partition": "p1"})
    assert (one.status, one.body) == (200, {"success": True, "queue": queue, "partition": "p1", "deleted": 2})
    rest = client.delete(f"/api/v1/queues/{quote(queue)}/clear")
    assert (rest.status, rest.body) == (200, {"success": True, "queue": queue, "partition": None, "deleted": 1})
    assert client.get("/api/v1/messages", params={"queue": queue}).body["messages"] == []
    assert client.configure(queue).status == 200, "the queue itself stays"
    unknown = client.delete(f"/api/v1/queues/{quote(unique_name('none'))}/clear")
    assert (unknown.status, unknown.body) == (404, {"error": "Queue not found"})
