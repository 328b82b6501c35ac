"""Contract: POST /api/v1/stats/refresh and the resources routes (docs/operations-stats.md).

Counters come from the statistics table the refresh recomputes, so every test refreshes after its pushes,
pops and acks. Tenant isolation runs on a second broker that verifies tokens.
"""
import time

import jwt
import pytest

from harness import Broker, ack_item, poll_until, unique_name
from harness.api import quote

COUNTERS = {"total", "pending", "processing", "completed", "failed", "deadLetter"}


def refresh(client):
    """POST /api/v1/stats/refresh with no body (as Python sends it), until it is not skipped by a reconciler batch."""
    def attempt():
        resp = client.post("/api/v1/stats/refresh")
        assert resp.status == 200, resp
        return None if resp.body.get("skipped") else resp.body
    return poll_until(attempt, timeout=10, what="a stats refresh that is not skipped")


def fill(client, queue, namespace=None, task=None):
    """6 messages on p1/p2; queue mode consumes 2 (acked) and leases 1."""
    assert client.configure(queue, namespace=namespace, task=task).status == 200
    items = [{"queue": queue, "partition": f"p{i % 2 + 1}", "payload": {"i": i}} for i in range(6)]
    assert client.push(items).status in (200, 201)
    msgs = client.pop_messages(queue, partition="p1", batch=2, wait=False)
    assert client.ack_batch([ack_item(m) for m in msgs]).status == 200
    assert len(client.pop_messages(queue, partition="p2", batch=1, wait=False)) == 1


def test_stats_refresh_answers_a_summary(client):
    body = refresh(client)
    assert body["skipped"] is False
    assert isinstance(body["queuesRefreshed"], int) and isinstance(body["complete"], bool)
    assert isinstance(body["durationMs"], (int, float))


def test_counters_follow_pushes_pops_and_acks_after_a_refresh(client):
    queue = unique_name("ct-res")
    fill(client, queue, namespace="ct-ns-" + queue, task="ct-task-" + queue)
    refresh(client)

    resp = client.get(f"/api/v1/resources/queues/{quote(queue)}")
    assert resp.status == 200, resp
    detail = resp.body
    assert set(detail) == {"id", "name", "namespace", "task", "createdAt", "partitions", "pagination", "totals"}
    assert detail["pagination"] == {"limit": 100, "offset": 0, "total": 3}  # Default, p1, p2
    assert detail["name"] == queue and detail["namespace"] == "ct-ns-" + queue
    assert detail["totals"] == {"total": 6, "pending": 4, "processing": 1, "completed": 2, "failed": 0,
                                "deadLetter": 0}
    by_name = {p["name"]: p for p in detail["partitions"]}
    assert by_name["p1"]["stats"] == {"total": 3, "pending": 1, "processing": 0, "completed": 2, "failed": 0,
                                      "deadLetter": 0}
    for p in detail["partitions"]:
        assert set(p) == {"id", "name", "createdAt", "stats", "oldestMessage", "newestMessage"}
        assert set(p["stats"]) == COUNTERS
    assert detail["createdAt"].endswith("Z")

    listing = client.get("/api/v1/resources/queues", params={"search": queue, "limit": 10, "offset": 0})
    assert listing.status == 200, listing
    assert set(listing.body) == {"queues", "total", "pagination"}
    assert listing.body["pagination"] == {"limit": 10, "offset": 0}
    [row] = listing.body["queues"]
    assert set(row) == {"id", "name", "namespace", "task", "createdAt", "partitions", "messages"}
    assert row["partitions"] == 3  # Default, p1, p2
    assert row["messages"] == {"total": 6, "pending": 4, "processing": 1}

    namespaces = client.get("/api/v1/resources/namespaces")
    assert namespaces.status == 200
    [ns] = [n for n in namespaces.body["namespaces"] if n["namespace"] == "ct-ns-" + queue]
    assert ns == {"namespace": "ct-ns-" + queue, "queues": 1, "partitions": 3,
                  "messages": {"total": 6, "pending": 4}}
    tasks = client.get("/api/v1/resources/tasks")
    assert tasks.status == 200
    [task] = [t for t in tasks.body["tasks"] if t["task"] == "ct-task-" + queue]
    assert set(task) == {"task", "queues", "partitions", "messages"}


def test_overview_has_every_documented_key(client):
    resp = client.get("/api/v1/resources/overview")
    assert resp.status == 200, resp
    body = resp.body
    assert set(body) >= {"queues", "partitions", "namespaces", "tasks", "messages", "lag", "throughput",
                         "timestamp", "statsAge"}
    assert set(body["messages"]) == COUNTERS
    assert set(body["lag"]) == {"time", "offset"}
    assert set(body["lag"]["time"]) == {"avg", "median", "min", "max"}
    assert set(body["throughput"]) == {"ingestedPerSecond", "processedPerSecond"}
    assert isinstance(body["queues"], int)


def test_unknown_queue_is_404(client):
    resp = client.get(f"/api/v1/resources/queues/{quote(unique_name('ct-none'))}")
    assert resp.status == 404
    assert resp.body == {"error": "Queue not found"}


def test_paging_is_honoured(client):
    resp = client.get("/api/v1/resources/queues", params={"limit": 1, "offset": 0})
    assert resp.status == 200 and len(resp.body["queues"]) <= 1
    assert client.get("/api/v1/resources/queues", params={"limit": "x"}).body["pagination"]["limit"] == 100


SECRET = "contract-stats-secret-0123456789abcdef"


def token(tenant, role="admin"):
    """A tenant's token; tenant None: the operator's (an admin token without a tenant claim)."""
    now = int(time.time())
    claims = {"sub": "ct", "role": role, "iat": now, "exp": now + 3600}
    if tenant is not None:
        claims["tenant"] = tenant
    return jwt.encode(claims, SECRET, algorithm="HS256")


@pytest.fixture(scope="module")
def auth_broker(pg):
    instance = Broker(pg=pg, name="ct-resources-auth",
                      env={"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ALGORITHM": "HS256"}).start()
    yield instance
    instance.stop()


def test_another_tenants_queues_are_neither_counted_nor_listed(auth_broker):
    mine, theirs = unique_name("ct-mine"), unique_name("ct-theirs")
    with auth_broker.client() as a, auth_broker.client() as b:
        a.default_headers["Authorization"] = f"Bearer {token(unique_name('ct-tenant'))}"
        b.default_headers["Authorization"] = f"Bearer {token(unique_name('ct-tenant'))}"
        fill(a, mine)
        fill(b, theirs)
        with auth_broker.client() as operator:  # a refresh acts on every tenant's statistics: the operator's call
            operator.default_headers["Authorization"] = f"Bearer {token(None)}"
            refresh(operator)
        names = [q["name"] for q in a.get("/api/v1/resources/queues", params={"limit": 1000}).body["queues"]]
        assert mine in names and theirs not in names
        assert a.get(f"/api/v1/resources/queues/{quote(theirs)}").status == 404
        assert a.get(f"/api/v1/status/queues/{quote(theirs)}").status == 404
        overview_a = a.get("/api/v1/resources/overview").body
        assert overview_a["queues"] == 1 and overview_a["messages"]["total"] == 6
        status_names = [q["name"] for q in a.get("/api/v1/status").body["queues"]]
        assert status_names == [mine]
