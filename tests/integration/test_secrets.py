"""Secrets stay secret: the database password, the mesh sync secret, the encryption key, the JWT secret and the
bearer tokens clients send never appear in the broker's log (at debug level, JSON lines, with the access log on),
in any response body or header, in /health or in the metrics.

Each secret is a distinctive value, so a leak of even its first 12 characters is found by a plain search.
The project cluster trusts local connections, so the password is accepted whatever it is.
"""
import json
import time

import jwt
import pytest

from harness import Broker, unique_name
from harness.ports import free_port

SECRETS = {
    "PG_PASSWORD": "pw-Xq7Lk2Vb9Rt4Zm8Nc1",
    "QUEEN_SYNC_SECRET": "sync-Hd5Jf8Wq2Pz6Ls3Yv0",
    "QUEEN_ENCRYPTION_KEY": "9f1c7a3e5b2d8f0a" * 4,  # 64 hex characters: a well-formed key
    "QUEEN_ENCRYPTION_KEY_PREVIOUS": "4b8e2c6a0d9f1e3b" * 4,  # the key before a rotation
    "JWT_SECRET": "jwt-Vn4Gt7Bq0Xs5Mk2Wf9Rd",
}
NOW = int(time.time())
# Bearer tokens: the one every request carries, and refused ones (expired, wrongly signed) that reach the error paths.
TOKENS = {
    "admin token": jwt.encode({"sub": "secret-test-admin", "role": "admin", "exp": NOW + 3600},
                              SECRETS["JWT_SECRET"], algorithm="HS256"),
    "expired token": jwt.encode({"sub": "secret-test-late", "role": "admin", "exp": NOW - 3600},
                                SECRETS["JWT_SECRET"], algorithm="HS256"),
    "foreign token": jwt.encode({"sub": "secret-test-forged", "role": "admin", "exp": NOW + 3600},
                                "some-other-secret-value-0123456789", algorithm="HS256"),
}
# A leak of a prefix counts: errors and logs often cut long values.
LEAK_PREFIX_CHARS = 12


def token_parts(token):
    """A token's claims and signature segments: its header is the same for every HS256 token."""
    _, claims, signature = token.split(".")
    return [claims[:LEAK_PREFIX_CHARS], signature[:LEAK_PREFIX_CHARS], signature[-LEAK_PREFIX_CHARS:]]


def leaks(text):
    found = [name for name, secret in SECRETS.items() if secret[:LEAK_PREFIX_CHARS] in text]
    found += [name for name, token in TOKENS.items() if any(part in text for part in token_parts(token))]
    return sorted(found)


@pytest.fixture(scope="module")
def secret_broker(pg):
    # A mesh peer that never answers: the mesh logs its dial failures, which must not carry the secret.
    env = dict(SECRETS, LOG_LEVEL="debug", LOG_FORMAT="json", ACCESS_LOG="true", QUEEN_MESH_PORT=str(free_port()),
               QUEEN_MESH_PEERS=f"127.0.0.1:{free_port()}", JWT_ENABLED="true")
    broker = Broker(pg=pg, name="it-secrets", env=env).start()
    yield broker
    broker.stop()


def exercise_every_route_family(client):
    """Requests across the API, good and bad; returns every response as text (status line, headers, body)."""
    queue = unique_name("secret")
    responses = [
        client.get("/health"), client.get("/health/ready"), client.get("/metrics"),
        client.get("/metrics/prometheus"), client.get("/metrics", headers={"Accept": "text/plain"}),
        client.get("/metrics/json"), client.get("/api/v1/system/log-level"),
        client.post("/api/v1/system/log-level", json={"level": "debug", "accessLog": True}),
        client.get("/api/v1/status/buffers"),
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
        # Refused tokens: 401s and their debug log lines.
        client.get("/api/v1/dlq", headers={"Authorization": "Bearer " + TOKENS["expired token"]}),
        client.get("/api/v1/dlq", headers={"Authorization": "Bearer " + TOKENS["foreign token"]}),
        client.get("/api/v1/dlq", headers={"Authorization": TOKENS["foreign token"] + "x"}),
        client.get("/api/v1/dlq", headers={"Authorization": ""}),
        # A token sent as the request id is not taken (too long): the answer and the access log mint one.
        client.get("/health", headers={"X-Request-Id": TOKENS["admin token"]}),
    ]
    return [f"{r.status} {sorted(r.headers.items())} {r.raw.decode('utf-8', 'replace') if r.raw else ''}"
            for r in responses]


def test_no_secret_reaches_a_response_the_metrics_or_the_log(secret_broker):
    with secret_broker.client() as client:
        client.default_headers["Authorization"] = "Bearer " + TOKENS["admin token"]
        texts = exercise_every_route_family(client)
    assert sum(text.startswith("401") for text in texts) == 4, texts
    assert all(text[:3] != "500" for text in texts), [t for t in texts if t.startswith("500")]
    for text in texts:
        assert leaks(text) == [], text[:500]
    # The boot lines name every setting: secrets appear there only masked.
    log = secret_broker.log_text()
    assert "sync_secret=***" in log and "encryption_key=***" in log and "password=***" in log, log[:3000]
    assert "encryption_key_previous=***" in log, log[:3000]
    assert " secret=***" in log, log[:3000]  # JWT_SECRET on the jwt line
    secret_broker.stop()  # the shutdown lines count too
    log = secret_broker.log_text()
    assert leaks(log) == []
    # LOG_FORMAT=json: every line of the broker's (the harness marks each start with one of its own) parses.
    lines = [json.loads(line) for line in log.splitlines() if line.strip() and not line.startswith("=== harness:")]
    access = [line for line in lines if line.get("logger") == "access"]
    assert len(access) >= len(texts), f"{len(access)} access lines for {len(texts)} requests"
    assert {"401", "404"} <= {str(line["status"]) for line in access}
