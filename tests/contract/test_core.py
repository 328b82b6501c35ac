"""Contract: health, metrics, configure, push, the three pop forms, ack, ack batch, transaction, lease extension.

Requests go out as the official clients send them: JS puts Content-Type on every request, Python sends no body
for an empty dict, pop always carries batch/wait/timeout, and names in admin paths are percent-encoded.
"""
import uuid

from harness.api import QUEUE_MODE, quote, unique_name

OPTION_KEYS = {"leaseTime", "retryLimit", "retryDelay", "priority", "delayedProcessing", "windowBuffer", "maxSize", "ttl",
               "retentionEnabled", "retentionSeconds", "completedRetentionSeconds", "maxWaitTimeSeconds",
               "deadLetterQueue", "dlqAfterMaxRetries", "encryptionEnabled"}
JS_HEADERS = {"Content-Type": "application/json"}


def is_uuid(text):
    return str(uuid.UUID(text)) == text


def push_one(client, queue, payload, partition="Default"):
    resp = client.post("/api/v1/push", {"items": [{"queue": queue, "partition": partition, "payload": payload,
                                                     "transactionId": str(uuid.uuid4())}]})
    assert resp.status == 201, resp
    return resp.body[0]


def pop(client, queue, partition=None, **params):
    path = f"/api/v1/pop/queue/{queue}" + (f"/partition/{partition}" if partition else "")
    query = {"batch": 10, "wait": "false", "timeout": 30000}
    query.update(params)
    return client.get(path, params=query, headers=JS_HEADERS)


def test_health_ready_metrics_prometheus(client):
    health = client.get("/health", headers=JS_HEADERS)
    assert health.status == 200
    assert (health.body["status"], health.body["database"]) == ("healthy", "connected")
    assert isinstance(health.body["version"], str) and isinstance(health.body["worker_id"], int)
    ready = client.get("/health/ready")
    assert ready.status == 200 and ready.body["status"] == "ready"
    metrics = client.get("/metrics")
    assert metrics.status == 200
    assert {"uptime", "requests", "messages", "database", "memory", "cpu"} <= set(metrics.body)
    prometheus = client.get("/metrics/prometheus")
    assert prometheus.status == 200
    assert prometheus.header("content-type").startswith("text/plain")
    assert "queen_file_buffer_pending" in prometheus.body
    # GET /metrics to a scraper (its Accept header) is the text; /metrics/json is the JSON whatever is asked.
    scraped = client.get("/metrics", headers={"Accept": "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
    assert scraped.status == 200 and scraped.header("content-type").startswith("text/plain")
    assert "queen_file_buffer_pending" in scraped.body
    as_json = client.get("/metrics/json", headers={"Accept": "text/plain"})
    assert as_json.status == 200 and {"uptime", "cpu"} <= set(as_json.body)


def test_configure_echoes_all_fifteen_options_with_their_types(client):
    queue = unique_name("ct")
    resp = client.post("/api/v1/configure", {"queue": queue, "namespace": "billing", "task": "render",
                                             "options": {"leaseTime": 120, "retryLimit": 2, "encryptionEnabled": False}})
    assert resp.status == 200
    body = resp.body
    assert body["configured"] is True and body["queue"] == queue
    assert (body["namespace"], body["task"]) == ("billing", "render")
    assert is_uuid(body["queueId"]) and is_uuid(body["partitionId"])
    assert set(body["options"]) == OPTION_KEYS
    assert body["options"]["leaseTime"] == 120 and body["options"]["retentionEnabled"] is False
    assert "warning" not in body
    typo = client.post("/api/v1/configure", {"queue": queue, "options": {"leaseTme": 120}})
    assert typo.status == 200 and typo.body["options"]["leaseTime"] == 300
    assert typo.body["warning"].startswith("unknown option ignored: leaseTme"), typo.body
    missing = client.post("/api/v1/configure", {"options": {}})
    assert missing.status == 400 and missing.body == {"error": "queue is required"}


def test_push_answers_201_with_both_casings_per_item(client):
    queue = unique_name("ct")
    tx = str(uuid.uuid4())
    items = [{"queue": queue, "partition": "p1", "payload": {"n": 1}, "transactionId": tx},
             {"queue": queue, "partition": "p1", "payload": {"n": 1}, "transactionId": tx}]
    resp = client.post("/api/v1/push", {"items": items})
    assert resp.status == 201
    first, second = resp.body
    assert first["status"] == "queued" and second["status"] == "duplicate"
    for index, item in enumerate(resp.body):
        assert item["index"] == index
        assert item["transaction_id"] == item["transactionId"] == tx
        assert is_uuid(item["message_id"]) and item["message_id"] == item["messageId"]
        assert item["partition_id"] == item["partitionId"]
    assert second["message_id"] == first["message_id"]
    assert client.post("/api/v1/push", {"items": []}).body == []
    bad = client.post("/api/v1/push", {"items": [{"payload": {}}]})
    assert bad.status == 400 and bad.body == {"error": "push item 0: Queue must be a string"}
    assert client.post("/api/v1/push", data=b"").body == {"error": "Empty request body"}


def test_pop_forms_share_one_shape_and_answer_204_when_empty(client):
    queue = unique_name("ct")
    client.post("/api/v1/configure", {"queue": queue, "namespace": "ct-ns", "task": unique_name("task")})
    pushed = push_one(client, queue, {"n": 1}, partition="acct-7")
    resp = pop(client, queue, partition="acct-7")
    assert resp.status == 200
    body = resp.body
    assert body["success"] is True and body["consumerGroup"] == QUEUE_MODE
    (message,) = body["messages"]
    assert message["transactionId"] == pushed["transactionId"] and message["partition"] == "acct-7"
    assert message["data"] == {"n": 1} and message["leaseId"] == body["leaseId"]
    assert message["createdAt"].endswith("Z") and len(message["createdAt"]) == len("2025-03-04T09:15:26.123456Z")
    assert message["retryCount"] == 0 and message["queue"] == queue and message["traceId"] is None
    empty = pop(client, queue)
    assert empty.status == 204 and empty.raw == b""
    push_one(client, queue, {"n": 2})
    assert pop(client, queue).status == 200
    task_queue = unique_name("ct")
    task = unique_name("task")
    client.post("/api/v1/configure", {"queue": task_queue, "namespace": "ct-ns", "task": task})
    push_one(client, task_queue, {"n": 3})
    by_task = client.get("/api/v1/pop", params={"task": task, "batch": 1, "wait": "false", "timeout": 1000})
    assert by_task.status == 200 and by_task.body["messages"][0]["queue"] == task_queue
    neither = client.get("/api/v1/pop", params={"batch": 1})
    assert neither.status == 400 and neither.body == {"error": "namespace or task is required"}


def test_ack_single_is_a_one_element_array_and_batch_answers_in_order(client):
    queue = unique_name("ct")
    for n in range(3):
        push_one(client, queue, {"n": n})
    messages = pop(client, queue, batch=3).body["messages"]
    first = messages[0]
    single = client.post("/api/v1/ack", {"transactionId": first["transactionId"], "partitionId": first["partitionId"],
                                         "leaseId": first["leaseId"], "status": "completed", "error": None,
                                         "consumerGroup": None})
    assert single.status == 200
    (result,) = single.body
    assert result["success"] is True and result["error"] is None and result["transactionId"] == first["transactionId"]
    batch = client.post("/api/v1/ack/batch", {"consumerGroup": None, "acknowledgments": [
        {"transactionId": m["transactionId"], "partitionId": m["partitionId"], "leaseId": m["leaseId"],
         "status": "completed", "error": None} for m in messages[1:]]})
    assert batch.status == 200
    assert [r["transactionId"] for r in batch.body] == [m["transactionId"] for m in messages[1:]]
    assert all(r["success"] for r in batch.body)
    unknown = client.post("/api/v1/ack", {"transactionId": "nope", "partitionId": first["partitionId"]})
    assert unknown.status == 200 and unknown.body[0]["success"] is False
    missing = client.post("/api/v1/ack", {"transactionId": "x"})
    assert missing.status == 400 and missing.body == {"error": "partitionId is required to ensure message uniqueness"}


def test_transaction_and_lease_extension(client):
    queue, target = unique_name("ct"), unique_name("ct")
    push_one(client, queue, {"n": 1})
    message = pop(client, queue).body["messages"][0]
    python_style = client.post(f"/api/v1/lease/{quote(message['leaseId'])}/extend")  # Python: no body at all
    assert python_style.status == 200
    assert python_style.body["success"] is True and python_style.body["leaseId"] == message["leaseId"]
    assert python_style.body["newExpiresAt"].endswith("Z")
    unknown = client.post(f"/api/v1/lease/{uuid.uuid4()}/extend", {"seconds": 30})
    assert unknown.status == 200 and unknown.body["success"] is False and unknown.body["newExpiresAt"] is None
    resp = client.post("/api/v1/transaction", {
        "operations": [{"type": "ack", "transactionId": message["transactionId"], "partitionId": message["partitionId"],
                        "status": "completed"},
                       {"type": "push", "items": [{"queue": target, "payload": {"moved": True}}]}],
        "requiredLeases": [message["leaseId"]]})
    assert resp.status == 200
    assert resp.body["success"] is True and "error" not in resp.body
    assert [r["type"] for r in resp.body["results"]] == ["ack", "push"]
    failed = client.post("/api/v1/transaction", {"operations": [{"type": "bogus"}]})
    assert failed.status == 200 and failed.body["success"] is False and isinstance(failed.body["error"], str)
    empty = client.post("/api/v1/transaction", {"operations": []})
    assert empty.status == 400 and empty.body == {"error": "operations array cannot be empty"}


def test_unknown_paths_and_methods_answer_the_error_envelope(client):
    unknown = client.get("/api/v1/nowhere")
    assert unknown.status == 404 and unknown.body == {"error": "Not found"}
    wrong_method = client.request("PUT", "/api/v1/push")
    assert wrong_method.status == 405 and "error" in wrong_method.body
    preflight = client.options("/api/v1/push")
    assert preflight.status == 204 and preflight.raw == b""
    assert preflight.header("access-control-allow-origin") is None  # CORS is off unless HTTP_CORS_ORIGINS lists origins
