"""Bad input gets a clear 4xx JSON error and stores nothing
(docs/limits.md, docs/api-extensions.md "Wire conventions")."""
import json

import pytest

from harness import Broker, schema, unique_name
from harness.assertions import assert_json_error, new_txid

MAX_BODY_BYTES = 64 * 1024


def assert_nothing_stored(pg, *queues):
    for queue in queues:
        assert not schema.queue_exists(pg, queue), f"queue {queue} was created by a rejected request"
        assert schema.message_count(pg, queue) == 0


def test_malformed_json_is_rejected(client, pg):
    queue = unique_name("badjson")
    resp = client.post("/api/v1/push", data='{"items": [{"queue": "%s", "payload": {' % queue)
    assert_json_error(resp, 400, prefix="Invalid JSON")
    assert_nothing_stored(pg, queue)


def test_empty_push_body_is_rejected(client):
    assert_json_error(client.post("/api/v1/push", data=b""), 400, message="Empty request body")


@pytest.mark.parametrize("body", [{}, {"items": None}, {"items": {"queue": "q"}}, {"items": "q"}, [1, 2]],
                         ids=["no-items", "null-items", "object-items", "string-items", "array-body"])
def test_push_without_an_items_array_is_rejected(client, body):
    assert_json_error(client.post("/api/v1/push", body), 400, message="items array is required")


def test_an_item_without_queue_rejects_the_whole_request(client, pg):
    good_queue = unique_name("valid-neighbour")
    resp = client.push([{"queue": good_queue, "payload": 1, "transactionId": new_txid()},
                        {"payload": 2, "transactionId": new_txid()}])
    assert_json_error(resp, 400, message="push item 1: Queue must be a string")
    assert_nothing_stored(pg, good_queue)


@pytest.mark.parametrize("field,value,message", [
    ("queue", 12, "push item 0: Queue must be a string"),
    ("partition", 7, "push item 0: Partition must be a string"),
    ("transactionId", {"id": 1}, "push item 0: TransactionId must be a string"),
    ("traceId", 99, "push item 0: TraceId must be a string"),
])
def test_mistyped_item_fields_are_rejected(client, pg, field, value, message):
    queue = unique_name("mistyped")
    item = {"queue": queue, "payload": {"x": 1}, "transactionId": new_txid()}
    item[field] = value
    assert_json_error(client.push([item]), 400, message=message)
    assert_nothing_stored(pg, queue)


def test_a_refused_item_is_named_by_its_index(client, pg):
    queue = unique_name("named-item")
    items = [{"queue": queue, "payload": n, "transactionId": new_txid()} for n in range(3)]
    items[2]["traceId"] = "not-a-uuid"
    assert_json_error(client.push(items), 400, message="push item 2: TraceId must be a valid UUID")
    tx = {"operations": [{"type": "push", "items": items}]}
    assert_json_error(client.post("/api/v1/transaction", tx), 400,
                      message="push item 2: TraceId must be a valid UUID")
    assert_nothing_stored(pg, queue)


def test_a_non_uuid_trace_id_is_rejected(client, pg):
    queue = unique_name("badtrace")
    resp = client.push([{"queue": queue, "payload": 1, "traceId": "not-a-uuid", "transactionId": new_txid()}])
    assert_json_error(resp, 400)
    assert "trace" in resp.body["error"].lower(), resp.body
    assert_nothing_stored(pg, queue)


def test_unknown_routes_answer_404_json(client):
    assert_json_error(client.get("/api/v1/unknown"), 404, message="Not found")


def test_maintenance_flag_needs_a_boolean(client):
    for body in ({}, {"enabled": "yes"}, {"enabled": 1}):
        assert_json_error(client.post("/api/v1/system/maintenance", body), 400,
                          message="enabled (boolean) is required")
        assert_json_error(client.post("/api/v1/system/maintenance/pop", body), 400,
                          message="enabled (boolean) is required")


@pytest.fixture(scope="module")
def small_body_broker(pg):
    broker = Broker(pg=pg, name="it-small-body", env={"MAX_BODY_BYTES": MAX_BODY_BYTES}).start()
    yield broker
    broker.stop()


def test_an_oversized_body_gets_413_and_stores_nothing(small_body_broker, pg):
    queue = unique_name("huge")
    item = {"queue": queue, "payload": {"blob": "x" * (MAX_BODY_BYTES * 3)}, "transactionId": new_txid()}
    with small_body_broker.client() as c:
        resp = c.push([item])
        assert_json_error(resp, 413)
    assert_nothing_stored(pg, queue)
    # A body under the limit still works on the same broker.
    small = {"queue": queue, "payload": {"blob": "x" * 1000}, "transactionId": new_txid()}
    assert len(json.dumps({"items": [small]})) < MAX_BODY_BYTES
    with small_body_broker.client() as c:
        ok = c.push([small])
        assert ok.status == 201 and ok.body[0]["status"] == "queued", ok
