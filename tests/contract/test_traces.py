"""Traces: POST /api/v1/traces and the three reads, with the exact wire shapes (snake_case on the reads)."""
from harness import unique_name
from harness.api import quote

from msg_support import MILLIS, UUID, popped, pushed

MISSING_PARTITION = "00000000-0000-7000-8000-000000000000"


def a_message(client, prefix="tr"):
    queue = unique_name(prefix)
    pushed(client, queue, {"order": 7}, "inv-1")
    return queue, popped(client, queue)


def post_trace(client, body):
    return client.post("/api/v1/traces", body)


def test_a_trace_as_the_consume_loop_posts_it_is_201_with_its_id(client):
    _, msg = a_message(client)
    resp = post_trace(client, {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"],
                               "consumerGroup": "__QUEUE_MODE__", "traceNames": ["tenant-acme", "render"],
                               "eventType": "info", "data": {"step": "started"}})
    assert resp.status == 201, resp
    assert set(resp.body) == {"success", "traceId"}
    assert resp.body["success"] is True and UUID.match(resp.body["traceId"])


def test_trace_defaults_single_name_and_null_names(client):
    _, msg = a_message(client)
    key = {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"]}
    assert post_trace(client, {**key, "data": {"a": 1}, "traceNames": "solo"}).status == 201
    assert post_trace(client, {**key, "data": "text", "traceNames": None, "consumerGroup": None}).status == 201
    resp = client.get(f"/api/v1/traces/{quote(msg['partitionId'])}/{quote(msg['transactionId'])}")
    assert resp.status == 200 and set(resp.body) == {"traces"}
    first, second = resp.body["traces"]
    assert set(first) == {"id", "event_type", "data", "consumer_group", "worker_id", "created_at", "trace_names"}
    assert (first["event_type"], first["consumer_group"], first["trace_names"], first["data"]) == \
        ("info", "__QUEUE_MODE__", ["solo"], {"a": 1})
    assert first["worker_id"] is None and MILLIS.match(first["created_at"])
    assert (second["trace_names"], second["data"]) == ([], "text")


def test_trace_errors(client):
    _, msg = a_message(client)
    missing_key = post_trace(client, {"transactionId": msg["transactionId"], "data": {}})
    assert (missing_key.status, missing_key.body) == (400, {"error": "transactionId and partitionId are required"})
    missing_data = post_trace(client, {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"]})
    assert (missing_data.status, missing_data.body) == (400, {"error": "data is required"})
    null_data = post_trace(client, {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"],
                                    "data": None})
    assert null_data.status == 400
    empty = client.request("POST", "/api/v1/traces")
    assert (empty.status, empty.body) == (400, {"error": "Empty request body"})
    unknown = post_trace(client, {"transactionId": "nope", "partitionId": MISSING_PARTITION, "data": {}})
    assert (unknown.status, unknown.body) == (404, {"success": False, "error": "Message not found"})
    not_a_uuid = post_trace(client, {"transactionId": "nope", "partitionId": "p-1", "data": {}})
    assert (not_a_uuid.status, not_a_uuid.body) == (404, {"success": False, "error": "Message not found"})
    too_many = post_trace(client, {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"],
                                   "data": {}, "traceNames": [f"n{i}" for i in range(17)]})
    assert too_many.status == 400 and "error" in too_many.body


def test_traces_of_an_unknown_message_are_empty(client):
    resp = client.get(f"/api/v1/traces/{MISSING_PARTITION}/nope")
    assert (resp.status, resp.body) == (200, {"traces": []})
    assert client.get("/api/v1/traces/not-a-uuid/nope").body == {"traces": []}


def test_by_name_and_names_with_paging(client):
    name = unique_name("trace name/x")  # a space and a slash: percent-encoded in the path
    queue, msg = a_message(client)
    key = {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"]}
    for step in range(3):
        assert post_trace(client, {**key, "data": {"step": step}, "traceNames": [name]}).status == 201
    resp = client.get(f"/api/v1/traces/by-name/{quote(name)}", params={"limit": 2, "offset": 0})
    assert resp.status == 200
    assert set(resp.body) == {"traces", "total", "pagination"}
    assert resp.body["total"] == 3 and resp.body["pagination"] == {"limit": 2, "offset": 0}
    assert [t["data"]["step"] for t in resp.body["traces"]] == [2, 1]
    trace = resp.body["traces"][0]
    assert set(trace) == {"id", "transaction_id", "partition_id", "event_type", "data", "consumer_group", "worker_id",
                          "created_at", "queue_name", "partition_name", "message_payload", "trace_names"}
    assert (trace["transaction_id"], trace["partition_id"], trace["queue_name"], trace["partition_name"],
            trace["message_payload"], trace["trace_names"]) == \
        ("inv-1", msg["partitionId"], queue, "Default", {"order": 7}, [name])
    defaults = client.get(f"/api/v1/traces/by-name/{quote(name)}").body
    assert defaults["pagination"] == {"limit": 100, "offset": 0} and len(defaults["traces"]) == 3

    names = client.get("/api/v1/traces/names", params={"limit": 1000, "offset": 0})
    assert names.status == 200 and set(names.body) == {"trace_names", "total", "pagination"}
    mine = [n for n in names.body["trace_names"] if n["trace_name"] == name]
    assert len(mine) == 1 and set(mine[0]) == {"trace_name", "trace_count", "message_count", "last_seen"}
    assert (mine[0]["trace_count"], mine[0]["message_count"]) == (3, 1) and MILLIS.match(mine[0]["last_seen"])
    assert client.get("/api/v1/traces/names").body["pagination"] == {"limit": 50, "offset": 0}


def test_traces_go_with_their_message(client):
    _, msg = a_message(client)
    key = {"transactionId": msg["transactionId"], "partitionId": msg["partitionId"]}
    assert post_trace(client, {**key, "data": {}}).status == 201
    deleted = client.delete(f"/api/v1/messages/{quote(msg['partitionId'])}/{quote(msg['transactionId'])}")
    assert deleted.status == 200 and deleted.body["success"] is True
    assert client.get(f"/api/v1/traces/{quote(msg['partitionId'])}/{quote(msg['transactionId'])}").body == \
        {"traces": []}
