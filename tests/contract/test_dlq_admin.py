"""DLQ administration (our extension, ADMIN level): requeue dead letters onto their partition, or delete them,
by the listing's filters or one message id."""
from harness import QUEUE_MODE, unique_name
from harness.api import quote

from msg_support import dead_letter, popped, pushed

MISSING_ID = "00000000-0000-7000-8000-000000000000"


def entries(client, queue, **params):
    body = client.get("/api/v1/dlq", params={"queue": queue, **params}).body
    return body["messages"]


def test_requeue_by_filter_puts_the_payload_back_on_its_partition(client):
    queue = unique_name("dlqa")
    dead_letter(client, queue, "a-1", payload={"n": 1}, partition="p1")
    dead_letter(client, queue, "a-2", payload={"n": 2}, partition="p2")
    resp = client.post("/api/v1/dlq/requeue", {"queue": queue, "partition": "p1", "consumerGroup": None})
    assert (resp.status, resp.body) == (200, {"requeued": 1})
    assert [e["transactionId"] for e in entries(client, queue)] == ["a-2"]
    again = popped(client, queue, partition="p1")
    assert again["data"] == {"n": 1} and again["transactionId"].startswith("a-1~requeue~")
    assert again["partitionId"] != "" and again["retryCount"] == 0
    window = client.post("/api/v1/dlq/requeue", {"queue": queue, "from": "2020-01-01T00:00:00Z",
                                                 "to": "2020-01-02T00:00:00Z"})
    assert (window.status, window.body) == (200, {"requeued": 0})
    everything = client.post("/api/v1/dlq/requeue", {"queue": queue})
    assert everything.body == {"requeued": 1} and entries(client, queue) == []


def test_requeue_needs_a_queue(client):
    for body in ({}, {"consumerGroup": "g"}):
        resp = client.post("/api/v1/dlq/requeue", body)
        assert (resp.status, resp.body) == (400, {"error": "queue is required"})
    empty = client.request("POST", "/api/v1/dlq/requeue")
    assert (empty.status, empty.body) == (400, {"error": "Empty request body"})
    bad_time = client.post("/api/v1/dlq/requeue", {"queue": "q", "from": "yesterday"})
    assert bad_time.status == 400 and set(bad_time.body) == {"error"}


def test_requeue_one_by_message_id(client):
    queue = unique_name("dlqo")
    dead_letter(client, queue, "o-1", payload={"n": 9})
    entry = entries(client, queue)[0]
    resp = client.request("POST", f"/api/v1/dlq/{quote(entry['id'])}/requeue")  # no body
    assert (resp.status, resp.body) == (200, {"requeued": 1})
    assert popped(client, queue)["data"] == {"n": 9}
    gone = client.post(f"/api/v1/dlq/{quote(entry['id'])}/requeue", {"consumerGroup": QUEUE_MODE})
    assert (gone.status, gone.body) == (404, {"error": "Dead letter not found"})
    for message_id in (MISSING_ID, "not-a-uuid"):
        assert client.post(f"/api/v1/dlq/{quote(message_id)}/requeue", {}).status == 404


def test_requeue_in_bus_mode_makes_one_copy_for_every_group(client):
    queue = unique_name("dlqb")
    assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    pushed(client, queue, {"n": 1}, "b-1")
    for group in ("g1", "g2"):
        msg = popped(client, queue, consumer_group=group)
        status = "failed" if group == "g1" else "completed"
        assert client.ack(msg["transactionId"], msg["partitionId"], lease_id=msg["leaseId"], status=status,
                          consumer_group=group).status == 200
    entry = entries(client, queue)[0]
    assert entry["consumerGroup"] == "g1"
    resp = client.post(f"/api/v1/dlq/{quote(entry['id'])}/requeue", {"consumerGroup": "g1"})
    assert resp.body == {"requeued": 1}
    for group in ("g1", "g2"):
        copy = popped(client, queue, consumer_group=group)
        assert copy["transactionId"].startswith("b-1~requeue~") and copy["data"] == {"n": 1}


def test_delete_by_filter_and_by_id(client):
    queue = unique_name("dlqd")
    dead_letter(client, queue, "d-1", partition="p1")
    dead_letter(client, queue, "d-2", partition="p2")
    dead_letter(client, queue, "d-3", partition="p3")
    first = entries(client, queue, partition="p1")[0]
    one = client.delete(f"/api/v1/dlq/{quote(first['id'])}", params={"consumerGroup": QUEUE_MODE})
    assert (one.status, one.body) == (200, {"deleted": 1})
    again = client.delete(f"/api/v1/dlq/{quote(first['id'])}")
    assert (again.status, again.body) == (404, {"error": "Dead letter not found"})
    by_partition = client.delete("/api/v1/dlq", params={"queue": queue, "partition": "p2"})
    assert (by_partition.status, by_partition.body) == (200, {"deleted": 1})
    rest = client.delete("/api/v1/dlq", params={"queue": queue, "consumerGroup": ""})
    assert rest.body == {"deleted": 1} and entries(client, queue) == []
    no_queue = client.delete("/api/v1/dlq")
    assert (no_queue.status, no_queue.body) == (400, {"error": "queue is required"})
    assert client.delete("/api/v1/dlq/not-a-uuid").status == 404
