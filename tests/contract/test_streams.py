"""Contract: the stream routes (/streams/v1/queries, /state/get, /cycle) with the shapes the stream SDKs read,
each answer checked against docs/openapi.json as it arrives."""
import uuid

from harness import unique_name

SEP = "\u001f"


def register(client, name, source, config_hash="h1", **extra):
    return client.post("/streams/v1/queries", {"name": name, "source_queue": source, "config_hash": config_hash,
                                               **extra})


def test_register_answers_fresh_then_known_then_409_on_another_chain(client):
    name, source = unique_name("ct-q"), unique_name("ct-src")
    first = register(client, name, source, sink_queue="")
    assert first.status == 200
    assert set(first.body) == {"success", "query_id", "name", "config_hash", "fresh", "reset"}
    assert first.body["fresh"] is True and first.body["reset"] is False and first.body["name"] == name
    again = register(client, name, source)
    assert again.status == 200 and again.body["fresh"] is False and again.body["query_id"] == first.body["query_id"]
    changed = register(client, name, source, config_hash="h2")
    assert changed.status == 409
    assert changed.body["success"] is False and changed.body["query_id"] == first.body["query_id"]
    assert changed.body["error"] == (f"config_hash mismatch: operator chain changed for queryId '{name}'. "
                                     "Pass reset:true to wipe existing state, or use a new queryId.")
    reset = register(client, name, source, config_hash="h2", reset=True)
    assert reset.status == 200 and reset.body["reset"] is True
    assert register(client, "", source).body == {"error": "name is required"}
    empty = client.post("/streams/v1/queries", data="")
    assert empty.status == 400 and empty.body == {"error": "Empty request body"}


def test_cycle_and_state_read_with_the_fields_the_sdk_reads(client):
    source, sink = unique_name("ct-src"), unique_name("ct-sink")
    client.configure(source, {"leaseTime": 30})
    client.push([{"queue": source, "partition": "p", "payload": {"n": 1}, "transactionId": "t1"}])
    query_id = register(client, unique_name("ct-q"), source).body["query_id"]
    group = "streams.ct"
    message = client.pop(source, batch=10, consumer_group=group).body["messages"][0]
    key = f"tumb:60{SEP}2026-12-01T20:06:00.000Z{SEP}p"
    resp = client.post("/streams/v1/cycle", {
        "query_id": query_id, "partition_id": message["partitionId"], "consumer_group": group, "release_lease": True,
        "state_ops": [{"type": "upsert", "key": key, "value": {"acc": {"count": 1}, "windowStart": 0, "windowEnd": 60000}}],
        "push_items": [{"queue": sink, "partition": "p", "payload": {"count": 1}}],
        "ack": {"transactionId": message["transactionId"], "leaseId": message["leaseId"], "status": "completed",
                "count": 1}})
    assert resp.status == 200
    body = resp.body
    assert body["success"] is True and body["queueName"] == source and body["state_ops_applied"] == 1
    assert body["query_id"] == query_id and body["partition_id"] == message["partitionId"]
    assert body["ack_result"] == {"success": True, "count": 1, "lease_released": True, "dlq": False}
    pushed = body["push_results"][0]
    assert pushed["index"] == 0 and pushed["status"] == "queued" and pushed["queueName"] == sink
    uuid.UUID(pushed["message_id"])

    stale = client.post("/streams/v1/cycle", {"query_id": query_id, "partition_id": message["partitionId"],
                                              "consumer_group": group,
                                              "ack": {"transactionId": message["transactionId"],
                                                      "leaseId": message["leaseId"]}})
    assert stale.status == 200 and stale.body["success"] is False
    assert stale.body["error"] == "Invalid or expired lease"

    rows = client.post("/streams/v1/state/get", {"query_id": query_id, "partition_id": message["partitionId"],
                                                 "keys": [], "key_prefix": f"tumb:60{SEP}",
                                                 "ripe_at_or_before": 60000})
    assert rows.status == 200 and rows.body["success"] is True
    assert [(r["key"], r["value"]["acc"]) for r in rows.body["rows"]] == [(key, {"count": 1})]
    assert isinstance(rows.body["rows"][0]["updated_at"], str)
    not_ripe = client.post("/streams/v1/state/get", {"query_id": query_id, "partition_id": message["partitionId"],
                                                     "ripe_at_or_before": 59999})
    assert not_ripe.body == {"success": True, "rows": []}
    missing = client.post("/streams/v1/state/get", {"query_id": query_id})
    assert missing.status == 400 and missing.body == {"error": "partition_id is required"}
    bad = client.post("/streams/v1/cycle", {"query_id": query_id, "partition_id": message["partitionId"],
                                            "state_ops": [{"type": "merge", "key": "k"}]})
    assert bad.status == 200 and bad.body["success"] is False and bad.body["error"] == "Unknown state_op type: merge"
