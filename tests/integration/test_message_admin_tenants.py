"""Message administration is tenant-scoped (docs/tenants.md): another tenant's message, trace and dead letter
do not exist for a caller, on every route of traces, messages and DLQ administration."""
import time

import jwt
import pytest

from harness import Broker, poll_until, unique_name
from harness.api import quote

SECRET = "message-admin-tenants-secret-0123456789"


def token(sub, tenant, role):
    now = int(time.time())
    return jwt.encode({"sub": sub, "role": role, "tenant": tenant, "iat": now, "exp": now + 3600}, SECRET,
                      algorithm="HS256")


@pytest.fixture(scope="module")
def broker(pg):
    instance = Broker(pg=pg, name="it-msg-tenants",
                      env={"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ALGORITHM": "HS256"}).start()
    yield instance
    instance.stop()


@pytest.fixture
def as_admin(broker):
    clients = []

    def make(tenant):
        c = broker.client()
        c.default_headers["Authorization"] = f"Bearer {token('u-' + tenant, tenant, 'admin')}"
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def test_another_tenants_message_trace_and_dead_letter_are_invisible(as_admin):
    acme, globex = as_admin("acme"), as_admin("globex")
    queue = unique_name("tma")
    assert acme.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    assert acme.push_one(queue, {"secret": 1}, transaction_id="t-1").status == 201
    msg = poll_until(lambda: acme.pop_messages(queue), what="acme pop")[0]
    pid, txid = msg["partitionId"], msg["transactionId"]
    trace = {"transactionId": txid, "partitionId": pid, "data": {"s": 1}, "traceNames": [queue]}
    assert acme.post("/api/v1/traces", trace).status == 201
    assert acme.ack(txid, pid, lease_id=msg["leaseId"], status="failed").body[0]["dlq"] is True
    message = f"/api/v1/messages/{quote(pid)}/{quote(txid)}"

    # globex sees nothing of it
    assert globex.post("/api/v1/traces", trace).status == 404
    assert globex.get(f"/api/v1/traces/{quote(pid)}/{quote(txid)}").body == {"traces": []}
    assert globex.get(f"/api/v1/traces/by-name/{quote(queue)}").body["total"] == 0
    assert all(n["trace_name"] != queue for n in globex.get("/api/v1/traces/names",
                                                             params={"limit": 1000}).body["trace_names"])
    assert globex.get(message).status == 404
    assert globex.get("/api/v1/messages", params={"queue": queue}).body["messages"] == []
    assert globex.get("/api/v1/resources/partitions", params={"queue": queue}).body["partitions"] == []
    assert globex.request("POST", message + "/retry").status == 404
    assert globex.post(message + "/dlq", {}).status == 404
    entry_id = acme.dlq(queue=queue).body["messages"][0]["id"]
    assert globex.post(f"/api/v1/dlq/{entry_id}/requeue", {}).status == 404
    assert globex.post("/api/v1/dlq/requeue", {"queue": queue}).body == {"requeued": 0}
    assert globex.delete(f"/api/v1/dlq/{entry_id}").status == 404
    assert globex.delete("/api/v1/dlq", params={"queue": queue}).body == {"deleted": 0}
    assert globex.delete(f"/api/v1/queues/{quote(queue)}/clear").status == 404
    assert globex.delete(message).body["success"] is False

    # and acme's is intact
    assert acme.get(message).body["payload"] == {"secret": 1}
    assert acme.get(f"/api/v1/traces/{quote(pid)}/{quote(txid)}").body["traces"][0]["data"] == {"s": 1}
    assert acme.get(f"/api/v1/traces/by-name/{quote(queue)}").body["total"] == 1
    assert acme.dlq(queue=queue).body["total"] == 1
