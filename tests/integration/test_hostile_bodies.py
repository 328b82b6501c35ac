"""Hostile request bodies cannot stop the broker (issue "Nothing a client sends can stop the broker").

Every request here is refused with 400 (413 for the body size, from the transport) and a JSON
{"error"} naming the limit and its configuration variable (docs/limits.md); after each one the
same broker process still answers GET /health and still pushes and pops a normal message.

The broker runs on a database of its own with log_parameter_max_length_on_error = -1, so
PostgreSQL echoes every statement parameter (the request data) in its error reports: the clean
error tests prove that none of that server text (severity, CONTEXT lines, the parameter echo)
reaches a client, while the broker log keeps it.
"""
import json
import urllib.parse

import pytest

from harness import Broker, TempDatabase, schema, unique_name
from harness.assertions import assert_json_error, new_txid

MAX_BODY_BYTES = 16 * 1024 * 1024  # room for the 10 MB string; the 413 case sends more
SERVER_TEXT = ("CONTEXT", "PL/pgSQL", "portal", "ERROR:", "SQL statement", "$1", "$4")


@pytest.fixture(scope="module")
def hostile_db(pg):
    database = TempDatabase(pg).create()
    database.server.with_db("postgres").execute(
        f'alter database "{database.name}" set log_parameter_max_length_on_error = -1;')
    yield database
    database.drop()


@pytest.fixture(scope="module")
def broker(hostile_db):
    instance = Broker(pg=hostile_db.target, name="it-hostile-bodies",
                      env={"MAX_BODY_BYTES": MAX_BODY_BYTES}).start()
    yield instance
    instance.stop()


@pytest.fixture(autouse=True)
def still_serving(broker):
    """After every test: the same process is alive, /health answers 200, a push and a pop work."""
    pid = broker.pid
    yield
    assert broker.alive, f"the broker died:\n{broker.log_tail()}"
    assert broker.pid == pid, "the broker was restarted"
    with broker.client() as client:
        health = client.health()
        assert health.status == 200, health
        queue = unique_name("after-hostile")
        txid = new_txid()
        pushed = client.push([{"queue": queue, "transactionId": txid, "payload": {"ok": True}}])
        assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
        messages = client.pop_messages(queue, batch=1)
        assert [m["transactionId"] for m in messages] == [txid]
        assert messages[0]["data"] == {"ok": True}
        acked = client.ack(txid, messages[0]["partitionId"], lease_id=messages[0]["leaseId"])
        assert acked.status == 200, acked


def post_raw(client, path, body, timeout=60):
    return client.post(path, data=body, timeout=timeout)


def push_body(payload_text):
    return '{"items":[{"queue":"%s","payload":%s}]}' % (unique_name("hostile"), payload_text)


def assert_limit_error(resp, setting, status=400):
    assert_json_error(resp, status)
    assert setting in resp.body["error"], resp.body


def assert_no_server_text(resp):
    for leak in SERVER_TEXT:
        assert leak not in resp.raw.decode("utf-8", "replace"), f"{leak!r} leaked: {resp.raw[:500]!r}"


# --------------------------------------------------------------------------- nesting

def test_the_issue_request_100000_nested_arrays(broker, client):
    body = '{"items":[{"queue":"q","payload":' + "[" * 100000 + "]" * 100000 + "}]}"
    resp = post_raw(client, "/api/v1/push", body)
    assert_json_error(resp, 400, message="JSON nesting deeper than 64 (JSON_MAX_DEPTH)")
    assert broker.alive, "the broker process died on the deep array"


def test_100000_nested_objects(broker, client):
    body = push_body('{"a":' * 100000 + "1" + "}" * 100000)
    assert_json_error(post_raw(client, "/api/v1/push", body), 400,
                      message="JSON nesting deeper than 64 (JSON_MAX_DEPTH)")
    assert broker.alive


@pytest.mark.parametrize("path", ["/api/v1/configure", "/api/v1/ack", "/api/v1/ack/batch", "/api/v1/transaction",
                                  "/api/v1/system/maintenance", "/api/v1/lease/x/extend"])
def test_every_json_route_uses_the_bounded_parser(client, path):
    assert_limit_error(post_raw(client, path, "[" * 100000 + "]" * 100000), "JSON_MAX_DEPTH")


def test_kv_values_use_the_bounded_parser(client):
    resp = client.put("/api/v1/kv/" + unique_name("kv"), data="{\"value\":" + "[" * 100000 + "]" * 100000 + "}")
    assert_limit_error(resp, "JSON_MAX_DEPTH")


# --------------------------------------------------------------------------- sizes

def test_a_10_mb_string(client):
    resp = post_raw(client, "/api/v1/push", push_body('"' + "x" * (10 * 1024 * 1024) + '"'))
    assert_json_error(resp, 400, message="JSON string longer than 8388608 bytes (JSON_MAX_STRING_BYTES)")


def test_a_4_mb_string_is_stored(client):
    queue = unique_name("big-string")
    blob = "b" * (4 * 1024 * 1024)
    resp = client.push([{"queue": queue, "transactionId": new_txid(), "payload": {"blob": blob}}], timeout=60)
    assert resp.status == 201 and resp.body[0]["status"] == "queued", resp
    messages = client.pop_messages(queue, batch=1)
    assert messages[0]["data"]["blob"] == blob


def test_100k_array_items(client):
    resp = post_raw(client, "/api/v1/push", push_body("[" + ",".join(["1"] * 100000) + "]"))
    assert_json_error(resp, 400, message="JSON array with more than 50000 items (JSON_MAX_ARRAY_ITEMS)")


def test_too_many_object_keys(client):
    payload = "{" + ",".join(f'"k{i}":0' for i in range(10001)) + "}"
    assert_json_error(post_raw(client, "/api/v1/push", push_body(payload)), 400,
                      message="JSON object with more than 10000 keys (JSON_MAX_OBJECT_KEYS)")


def test_too_many_push_items(client):
    items = [{"queue": "q", "payload": 1}] * 10001
    assert_json_error(client.push(items, timeout=60), 400, message="push with more than 10000 items (PUSH_MAX_ITEMS)")


def test_a_body_over_max_body_bytes_is_413(client):
    resp = post_raw(client, "/api/v1/push", push_body('"' + "x" * (MAX_BODY_BYTES + 1024) + '"'))
    assert resp.status == 413, resp
    assert isinstance(resp.body, dict) and resp.body.get("error"), resp


# --------------------------------------------------------------------------- bad text

@pytest.mark.parametrize("bad", [b"\xff", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"ok\x80"],
                         ids=["ff", "overlong", "truncated", "surrogate", "continuation"])
def test_invalid_utf8(client, bad):
    body = b'{"items":[{"queue":"q","payload":"' + bad + b'"}]}'
    resp = post_raw(client, "/api/v1/push", body)
    assert_json_error(resp, 400, prefix="Invalid JSON: ")
    assert "UTF-8" in resp.body["error"], resp.body
    assert bad not in resp.raw


def test_a_nul_escape_is_refused_cleanly(client):
    queue = unique_name("nul")
    resp = post_raw(client, "/api/v1/push",
                    '{"items":[{"queue":"%s","payload":{"text":"a\\u0000b"}}]}' % queue)
    assert_json_error(resp, 400, message="JSON strings must not contain \\u0000 (NUL): PostgreSQL cannot store it")
    assert_no_server_text(resp)
    assert client.pop(queue).status == 204


def test_duplicate_keys(client):
    resp = post_raw(client, "/api/v1/push", '{"items":[{"queue":"a","queue":"b","payload":1}]}')
    assert_json_error(resp, 400, message='JSON object has a duplicate key "queue"')


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1" + "0" * 400])
def test_numbers_out_of_range(client, number):
    resp = post_raw(client, "/api/v1/push", push_body(number))
    assert_json_error(resp, 400, prefix="Invalid JSON: number out of range")


def test_integers_beyond_int64_where_an_integer_is_expected(client):
    resp = client.post("/api/v1/lease/" + "0" * 8 + "-0000-0000-0000-" + "0" * 12 + "/extend",
                       data='{"seconds":18446744073709551615}')
    assert_json_error(resp, 400, message="seconds must be a positive integer")
    resp = client.put("/api/v1/kv/" + unique_name("kv"), data='{"value":1,"ttlMs":9223372036854775808}')
    assert_json_error(resp, 400, message="ttlMs must be a non-negative integer (milliseconds)")
    resp = post_raw(client, "/api/v1/push",
                    '{"items":[{"queue":"q","deliverAt":18446744073709551615,"payload":1}]}')
    assert_json_error(resp, 400, message="push item 0: deliverAt must be an ISO-8601 timestamp or epoch milliseconds")


# --------------------------------------------------------------------------- names

LONG = "n" * 256


@pytest.mark.parametrize("field,label", [("queue", "Queue"), ("partition", "Partition"),
                                         ("transactionId", "TransactionId"), ("namespace", "Namespace"),
                                         ("task", "Task")])
def test_over_long_push_names(client, field, label):
    item = {"queue": unique_name("long"), "payload": 1}
    item[field] = LONG
    assert_json_error(client.push([item]), 400,
                      message=f"push item 0: {label} must be at most 255 characters (NAME_MAX_CHARS)")


def test_over_long_names_elsewhere(client):
    q = urllib.parse.quote
    expect = "must be at most 255 characters (NAME_MAX_CHARS)"
    assert_json_error(client.configure(LONG), 400, message=f"queue {expect}")
    assert_json_error(client.get(f"/api/v1/pop/queue/{LONG}"), 400, message=f"queue {expect}")
    assert_json_error(client.get(f"/api/v1/pop/queue/q/partition/{LONG}"), 400, message=f"partition {expect}")
    assert_json_error(client.get("/api/v1/pop/queue/q", params={"consumerGroup": LONG}), 400,
                      message=f"consumerGroup {expect}")
    assert_json_error(client.get("/api/v1/pop", params={"namespace": LONG}), 400, message=f"namespace {expect}")
    assert_json_error(client.dlq(queue=LONG), 400, message=f"queue {expect}")
    assert_json_error(client.get(f"/api/v1/kv/{q(LONG)}"), 400, message=f"key {expect}")
    assert_json_error(client.ack("t", "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2", consumer_group=LONG), 400,
                      message=f"consumerGroup {expect}")


def test_a_nul_in_a_path_name_never_reaches_the_database(client, hostile_db):
    queue = unique_name("keep-me")
    assert client.configure(queue).status == 200
    resp = client.delete(f"/api/v1/resources/queues/{queue}%00x")
    assert_json_error(resp, 400, message="queue must not contain NUL characters")
    # libpq would have cut the name at the NUL and deleted `queue`.
    assert schema.queue_exists(hostile_db.target, queue)
    resp = client.get(f"/api/v1/pop/queue/{queue}%00x")
    assert_json_error(resp, 400, message="queue must not contain NUL characters")


# --------------------------------------------------------------------------- clean database errors

@pytest.mark.parametrize("options,message", [
    ({"leaseTime": "abc", "note": "request-data"}, 'option leaseTime must be an integer, got "abc"'),
    ({"retryLimit": -1, "note": "request-data"}, "option retryLimit must be >= 0, got -1"),
], ids=["not-an-integer", "negative"])
def test_a_procedure_raise_reaches_the_client_as_its_primary_message(broker, client, options, message):
    # A rejection of bad input is a debug line (docs/operations-logs.md): this test reads it at that level.
    assert client.post("/api/v1/system/log-level", {"level": "debug"}).status == 200
    try:
        since = broker.log_size()
        resp = client.configure(unique_name("raise"), options=options)
        assert_json_error(resp, 400, message=message)
        assert_no_server_text(resp)
        assert "request-data" not in resp.raw.decode()
        # The full text is the log's, on one line: the CONTEXT lines folded into a field (and, on this
        # database, the echoed parameters).
        lines = [line for line in broker.log_text(since=since).splitlines() if message in line]
        assert len(lines) == 1, lines
        log = lines[0]
        assert " debug " in log and "context: " in log and "PL/pgSQL function" in log, log[-2000:]
        assert "unnamed portal with parameters" in log and "request-data" in log, "the server did not echo: " + log[-2000:]
    finally:
        assert client.post("/api/v1/system/log-level", {"level": "info"}).status == 200
