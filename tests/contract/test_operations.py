"""Contract: spool and maintenance routes, the mesh view, the KV store, DLQ listing and queue deletion.

Maintenance flags are cluster-wide, so this module's broker runs on a database of its own.
"""
import uuid

import pytest

from harness import Broker, TempDatabase
from harness.api import quote, unique_name

from contract_client import RecordingClient


@pytest.fixture(scope="module")
def broker(pg):
    with TempDatabase(pg) as database:
        instance = Broker(pg=database.target, name="ct-operations").start()
        yield instance
        instance.stop()


@pytest.fixture
def client(broker):
    with RecordingClient(broker.url) as c:
        yield c


def test_buffers_and_maintenance_round_trip(client):
    buffers = client.get("/api/v1/status/buffers")
    assert buffers.status == 200
    assert {"pending", "failed", "dbHealthy", "worker", "database"} <= set(buffers.body)
    assert buffers.body["database"]["reachable"] is True
    state = client.get("/api/v1/system/maintenance")
    assert state.status == 200 and state.body["maintenanceMode"] is False
    assert {"pendingCount", "failedCount", "dbHealthy", "files", "bytes", "failedFiles"} <= set(state.body["bufferStats"])
    on = client.post("/api/v1/system/maintenance", {"enabled": True})
    assert on.status == 200 and on.body["maintenanceMode"] is True and isinstance(on.body["message"], str)
    off = client.post("/api/v1/system/maintenance", {"enabled": False})
    assert off.status == 200 and off.body["maintenanceMode"] is False
    bad = client.post("/api/v1/system/maintenance", {"enabled": "yes"})
    assert bad.status == 400 and bad.body == {"error": "enabled (boolean) is required"}
    logging = client.get("/api/v1/system/log-level")
    assert logging.status == 200 and logging.body["level"] in {"trace", "debug", "info", "warn", "error"}
    changed = client.post("/api/v1/system/log-level", {"level": logging.body["level"], "accessLog": True})
    assert changed.status == 200 and changed.body["accessLog"] is True
    assert client.post("/api/v1/system/log-level", {"level": "verbose"}).status == 400
    pop_state = client.get("/api/v1/system/maintenance/pop")
    assert pop_state.status == 200 and pop_state.body["popMaintenanceMode"] is False
    pop_on = client.post("/api/v1/system/maintenance/pop", {"enabled": True})
    assert pop_on.body["popMaintenanceMode"] is True
    assert client.post("/api/v1/system/maintenance/pop", {"enabled": False}).body["popMaintenanceMode"] is False


def test_shared_state_describes_the_mesh(client):
    resp = client.get("/api/v1/system/shared-state")
    assert resp.status == 200 and isinstance(resp.body, dict)


def test_kv_put_get_delete(client):
    key = f"ct/{uuid.uuid4().hex}"  # a slash inside the key travels percent-encoded
    put = client.put(f"/api/v1/kv/{quote(key)}", {"value": {"on": True}, "ttlMs": 60000})
    assert put.status == 200 and put.body["key"] == key and put.body["value"] == {"on": True}
    assert put.body["expiresAt"].endswith("Z")
    got = client.get(f"/api/v1/kv/{quote(key)}")
    assert got.status == 200 and got.body == put.body
    deleted = client.delete(f"/api/v1/kv/{quote(key)}")
    assert deleted.status == 200 and deleted.body == {"key": key, "deleted": True}
    gone = client.get(f"/api/v1/kv/{quote(key)}")
    assert gone.status == 404 and "error" in gone.body


def test_dlq_listing_and_queue_delete(client):
    queue = unique_name("ct")
    client.post("/api/v1/configure", {"queue": queue, "options": {"retryLimit": 0}})
    client.post("/api/v1/push", {"items": [{"queue": queue, "partition": "Default", "payload": {"n": 1},
                                            "transactionId": "dead-1"}]})
    message = client.get(f"/api/v1/pop/queue/{queue}", params={"batch": 1, "wait": "false"}).body["messages"][0]
    client.post("/api/v1/ack", {"transactionId": "dead-1", "partitionId": message["partitionId"],
                                "leaseId": message["leaseId"], "status": "failed", "error": "smtp 451"})
    listing = client.get("/api/v1/dlq", params={"queue": queue, "limit": 10, "offset": 0})
    assert listing.status == 200
    assert listing.body["total"] == 1 and listing.body["pagination"] == {"limit": 10, "offset": 0}
    (entry,) = listing.body["messages"]
    assert entry["errorMessage"] == "smtp 451" and entry["data"] == {"n": 1} and entry["transactionId"] == "dead-1"
    deleted = client.delete(f"/api/v1/resources/queues/{quote(queue)}")
    assert deleted.status == 200 and deleted.body == {"deleted": True, "queue": queue, "existed": True}
    again = client.delete(f"/api/v1/resources/queues/{quote(queue)}")
    assert again.body == {"deleted": True, "queue": queue, "existed": False}
