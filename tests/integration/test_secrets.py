"""Secrets stay secret: the database password, the mesh sync secret and the encryption key never appear in
the broker's log (at debug level), in any response body or header, in /health or in the metrics.

Each secret is a distinctive value, so a leak of even its first 12 characters is found by a plain search.
The project cluster trusts local connections, so the password is accepted whatever it is.
"""
import pytest

from harness import Broker, unique_name
from harness.ports import free_port

SECRETS = {
    "PG_PASSWORD": "pw-Xq7Lk2Vb9Rt4Zm8Nc1",
    "QUEEN_SYNC_SECRET": "sync-Hd5Jf8Wq2Pz6Ls3Yv0",
    "QUEEN_ENCRYPTION_KEY": "9f1c7a3e5b2d8f0a" * 4,  # 64 hex characters: a well-formed key
    "QUEEN_ENCRYPTION_KEY_PREVIOUS": "4b8e2c6a0d9f1e3b" * 4,  # the key before a rotation
}
# A leak of a prefix counts: errors and logs often cut long values.
LEAK_PREFIX_CHARS = 12


def leaks(text):
    return sorted(name for name, secret in SECRETS.items() if secret[:LEAK_PREFIX_CHARS] in text)


@pytest.fixture(scope="module")
def secret_broker(pg):
    # A mesh peer that never answers: the mesh logs its dial failures, which must not carry the secret.
    env = dict(SECRETS, LOG_LEVEL="debug", QUEEN_MESH_PORT=str(free_port()),
               QUEEN_MESH_PEERS=f"127.0.0.1:{free_port()}")
    broker = Broker(pg=pg, name="it-secrets", env=env).start()
    yield broker
    broker.stop()


def exercise_every_route_family(client):
    """Requests across the API, good and bad; returns every response as text (status line, headers, body)."""
    queue = unique_name("secret")
    responses = [
        client.get("/health"), client.get("/health/ready"), client.get("/metrics"),
        client.get("/metrics/prometheus"), client.get("/api/v1/status/buffers"),
        client.get("/api/v1/system/maintenance"), client.get("/api/v1/system/shared-state"),
        client.configure(queue, {"encryptionEnabled": True}),
        client.push([{"queue": queue, "transactionId": "s-1", "payload": {"n": 1}}]),
        client.pop(queue, batch=1),
        client.get(f"/api/v1/resources/queues/{queue}"),
        client.get("/api/v1/dlq", params={"queue": queue}),
        client.request("PUT", "/api/v1/kv/secret-key", json={"value": {"v": 1}}),
        client.get("/api/v1/kv/secret-key"),
        # Refused input of several kinds: the error texts must not carry configuration either.
        client.request("POST", "/api/v1/push", data=b"{not json"),
        client.post("/api/v1/push", json={"items": [{"queue": "", "payload": 1}]}),
        client.get("/api/v1/lease/not-a-uuid/extend"),
        client.post("/api/v1/ack", json={"transactionId": "x", "partitionId": "not-a-uuid"}),
        client.get("/api/v1/no-such-route"),
    ]
    return [f"{r.status} {sorted(r.headers.items())} {r.raw.decode('utf-8', 'replace') if r.raw else ''}"
            for r in responses]


def test_no_secret_reaches_a_response_the_metrics_or_the_log(secret_broker):
    with secret_broker.client() as client:
        texts = exercise_every_route_family(client)
    assert all(text[:3] != "500" for text in texts), [t for t in texts if t.startswith("500")]
    for text in texts:
        assert leaks(text) == [], text[:500]
    # The boot lines name every setting: secrets appear there only masked.
    log = secret_broker.log_text()
    assert "sync_secret=***" in log and "encryption_key=***" in log and "password=***" in log, log[:3000]
    assert "encryption_key_previous=***" in log, log[:3000]
    secret_broker.stop()  # the shutdown lines count too
    assert leaks(secret_broker.log_text()) == []
