"""Contract: the status and analytics routes (docs/operations-stats.md): documented top-level keys, types and
status codes, with the query parameters the clients send (Go adds includePartitions=true)."""
import datetime

from harness import ack_item, poll_until, unique_name
from harness.api import quote


def refresh(client):
    def attempt():
        resp = client.post("/api/v1/stats/refresh")
        assert resp.status == 200, resp
        return None if resp.body.get("skipped") else resp.body
    return poll_until(attempt, timeout=10, what="a stats refresh that is not skipped")


def iso(delta_minutes=0):
    at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=delta_minutes)
    return at.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def make_queue(client):
    queue = unique_name("ct-status")
    assert client.push([{"queue": queue, "partition": "p1", "payload": {"i": i}} for i in range(5)]).status in (200, 201)
    msgs = client.pop_messages(queue, partition="p1", batch=3, wait=False)
    assert client.ack_batch([ack_item(m) for m in msgs]).status == 200
    refresh(client)
    return queue


def test_status_overview(client):
    queue = make_queue(client)
    resp = client.get("/api/v1/status", params={"from": iso(-50), "to": iso(1), "queue": queue})
    assert resp.status == 200, resp
    body = resp.body
    assert set(body) == {"timeRange", "bucketMinutes", "pointCount", "throughput", "queues", "messages", "leases",
                         "deadLetterQueue", "workers", "errors", "statsAge"}
    assert body["bucketMinutes"] == 1 and body["pointCount"] == len(body["throughput"])
    assert sum(p["pushed"] for p in body["throughput"]) == 5
    assert sum(p["acked"] for p in body["throughput"]) == 3
    assert set(body["leases"]) == {"active", "partitionsWithLeases", "totalBatchSize", "totalAcked"}
    assert {"requests", "batchEfficiency", "total", "pending"} <= set(body["messages"])
    [q] = body["queues"]
    assert q["name"] == queue and q["messages"]["completed"] == 3 and q["pushed"] == 5
    assert isinstance(body["workers"], list)


def test_status_rejects_an_unreadable_time(client):
    resp = client.get("/api/v1/status", params={"from": "yesterday"})
    assert resp.status == 400
    assert resp.body == {"error": "from must be an ISO-8601 timestamp or epoch milliseconds"}
    later_first = client.get("/api/v1/status", params={"from": iso(10), "to": iso(0)})
    assert later_first.status == 400 and "error" in later_first.body


def test_status_queues_and_detail(client):
    queue = make_queue(client)
    listing = client.get("/api/v1/status/queues", params={"limit": 1000, "offset": 0})
    assert listing.status == 200
    assert set(listing.body) == {"queues", "pagination", "timeRange"}
    assert set(listing.body["pagination"]) == {"limit", "offset", "total"}
    [row] = [q for q in listing.body["queues"] if q["name"] == queue]
    assert row["messages"]["total"] == 5 and row["throughput"]["pushed"] == 5

    detail = client.get(f"/api/v1/status/queues/{quote(queue)}", params={"includePartitions": "true"})
    assert detail.status == 200, detail
    assert set(detail.body) == {"queue", "partitions", "pagination", "totals"}
    paged = client.get(f"/api/v1/status/queues/{quote(queue)}", params={"limit": 1, "offset": 0})
    assert len(paged.body["partitions"]) == 1 and paged.body["pagination"]["limit"] == 1
    assert paged.body["pagination"]["total"] == len(detail.body["partitions"])
    assert paged.body["totals"] == detail.body["totals"], "totals cover the whole queue, not the page"
    assert {"leaseTime", "retryLimit", "ttl", "priority"} <= set(detail.body["queue"]["config"])
    assert detail.body["totals"]["completed"] == 3

    missing = client.get(f"/api/v1/status/queues/{quote(unique_name('ct-none'))}")
    assert missing.status == 404 and missing.body == {"error": "Queue not found"}


def test_status_queue_messages(client):
    queue = make_queue(client)
    resp = client.get(f"/api/v1/status/queues/{quote(queue)}/messages", params={"limit": 2, "offset": 0})
    assert resp.status == 200, resp
    assert resp.body["pagination"] == {"limit": 2, "offset": 0}
    assert len(resp.body["messages"]) == 2
    for m in resp.body["messages"]:
        assert {"id", "transactionId", "partitionId", "queue", "partition", "status", "createdAt"} <= set(m)
        assert m["status"] in ("pending", "processing", "completed", "dead_letter")
    default = client.get(f"/api/v1/status/queues/{quote(queue)}/messages")
    assert default.body["pagination"] == {"limit": 50, "offset": 0} and len(default.body["messages"]) == 5
    assert client.get(f"/api/v1/status/queues/{quote(unique_name('x'))}/messages").status == 404


def test_status_analytics(client):
    queue = make_queue(client)
    resp = client.get("/api/v1/status/analytics", params={"queue": queue, "interval": "minute",
                                                            "from": iso(-30), "to": iso(1)})
    assert resp.status == 200, resp
    assert {"dataPoints", "interval", "from", "to", "timeRange", "bucketMinutes", "totals"} <= set(resp.body)
    assert resp.body["interval"] == "minute"
    assert resp.body["totals"]["pushed"] == 5
    assert all({"timestamp", "messages"} <= set(p) for p in resp.body["dataPoints"])


def test_analytics_routes_have_their_keys(client):
    queue = make_queue(client)
    expected = {
        "/api/v1/analytics/system-metrics": {"timeRange", "bucketMinutes", "replicas", "replicaCount", "pointCount"},
        "/api/v1/analytics/worker-metrics": {"timeRange", "bucketMinutes", "workers", "pointCount"},
        "/api/v1/analytics/queue-lag": {"timeRange", "bucketMinutes", "queues"},
        "/api/v1/analytics/queue-ops": {"timeRange", "bucketMinutes", "queues"},
        "/api/v1/analytics/queue-parked-replicas": {"timeRange", "bucketMinutes", "replicas"},
        "/api/v1/analytics/retention": {"timeRange", "jobs", "queues"},
        "/api/v1/analytics/dead-letter-errors": {"timeRange", "errors", "deadLetters", "total", "pagination"},
    }
    for path, keys in expected.items():
        resp = client.get(path, params={"from": iso(-60), "to": iso(1), "queue": queue})
        assert resp.status == 200, (path, resp)
        assert set(resp.body) == keys, path
    ops = client.get("/api/v1/analytics/queue-ops", params={"queue": queue}).body
    [q] = ops["queues"]
    assert q["queue"] == queue and sum(p["pushed"] for p in q["series"]) == 5
    pg = client.get("/api/v1/analytics/postgres-stats")
    assert pg.status == 200
    assert {"database", "connections", "tables", "serverVersion", "timestamp"} == set(pg.body)
    assert any(t["table"] == "segments" for t in pg.body["tables"])
