"""JWT authentication against real brokers (docs/auth.md): every route at every access level, every refused token
kind, RS256 and EdDSA through JWT_PUBLIC_KEY and through a JWKS served on 127.0.0.1 (with key rotation), JWT_SKIP_PATHS,
the boot refusals, and requests sent the way the official JS client sends them with its bearer-token option."""
import json
import os
import re
import time

import jwt
import pytest

from auth_support import (AUDIENCE, ISSUER, SECRET, JwksServer, bearer, claims, ed25519_key, hs256,
                          hs256_signed_with_any_text, jwk, public_pem, rsa_key, signed)
from harness import Broker, schema, unique_name
from harness.api import quote
from harness.waiting import attempts, poll_until

LEVELS = {"public": -1, "read-only": 0, "read-write": 1, "admin": 2, "operator": 3}
# The 403 of an operator route refused to a tenant's admin (docs/auth.md, "Access levels").
OPERATOR_REFUSAL = ("Insufficient permissions: this route acts on the whole cell and needs the operator level (an admin "
                    "token without a tenant claim); a tenant's admin cannot use it")
OPENAPI_DOCUMENT = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "openapi.json")

Q = unique_name("auth")
NO_ID = "00000000-0000-0000-0000-000000000000"
# (method, pattern, level, path to call, body). The pattern and level must match docs/openapi.json, which
# tests/unit/http/api/route_access_test.cpp holds to the router.
ROUTES = [
    ("GET", "/health", "public", "/health", None),
    ("GET", "/health/ready", "public", "/health/ready", None),
    ("GET", "/metrics", "public", "/metrics", None),
    ("GET", "/metrics/prometheus", "public", "/metrics/prometheus", None),
    ("GET", "/metrics/json", "public", "/metrics/json", None),
    ("POST", "/api/v1/configure", "read-write", "/api/v1/configure", {"queue": Q}),
    ("POST", "/api/v1/push", "read-write", "/api/v1/push", {"items": [{"queue": Q, "payload": {"n": 1}}]}),
    ("GET", "/api/v1/pop/queue/:queue", "read-write", f"/api/v1/pop/queue/{Q}?wait=false", None),
    ("GET", "/api/v1/pop/queue/:queue/partition/:partition", "read-write",
     f"/api/v1/pop/queue/{Q}/partition/p1?wait=false", None),
    ("GET", "/api/v1/pop", "read-write", "/api/v1/pop?namespace=auth-none&wait=false", None),
    ("POST", "/api/v1/ack", "read-write", "/api/v1/ack",
     {"transactionId": "t", "partitionId": "00000000-0000-0000-0000-000000000000", "status": "completed"}),
    ("POST", "/api/v1/ack/batch", "read-write", "/api/v1/ack/batch", {"acknowledgments": []}),
    ("POST", "/api/v1/lease/:leaseId/extend", "read-write",
     "/api/v1/lease/00000000-0000-0000-0000-000000000000/extend", None),
    ("POST", "/api/v1/transaction", "read-write", "/api/v1/transaction", {"operations": []}),
    ("POST", "/streams/v1/queries", "read-write", "/streams/v1/queries", {}),
    ("POST", "/streams/v1/state/get", "read-only", "/streams/v1/state/get", {}),
    ("POST", "/streams/v1/cycle", "read-write", "/streams/v1/cycle", {}),
    ("GET", "/api/v1/dlq", "read-only", f"/api/v1/dlq?queue={Q}", None),
    ("GET", "/api/v1/status/buffers", "operator", "/api/v1/status/buffers", None),
    ("DELETE", "/api/v1/resources/queues/:queue", "admin", f"/api/v1/resources/queues/{quote(unique_name('none'))}",
     None),
    # Statistics (docs/operations-stats.md).
    ("POST", "/api/v1/stats/refresh", "operator", "/api/v1/stats/refresh", None),
    ("GET", "/api/v1/resources/overview", "read-only", "/api/v1/resources/overview", None),
    ("GET", "/api/v1/resources/queues", "read-only", "/api/v1/resources/queues", None),
    ("GET", "/api/v1/resources/queues/:queue", "read-only", f"/api/v1/resources/queues/{Q}", None),
    ("GET", "/api/v1/resources/namespaces", "read-only", "/api/v1/resources/namespaces", None),
    ("GET", "/api/v1/resources/tasks", "read-only", "/api/v1/resources/tasks", None),
    ("GET", "/api/v1/status", "read-only", "/api/v1/status", None),
    ("GET", "/api/v1/status/queues", "read-only", "/api/v1/status/queues", None),
    ("GET", "/api/v1/status/queues/:queue", "read-only", f"/api/v1/status/queues/{Q}", None),
    ("GET", "/api/v1/status/queues/:queue/messages", "read-only", f"/api/v1/status/queues/{Q}/messages", None),
    ("GET", "/api/v1/status/analytics", "read-only", "/api/v1/status/analytics", None),
    ("GET", "/api/v1/analytics/system-metrics", "operator", "/api/v1/analytics/system-metrics", None),
    ("GET", "/api/v1/analytics/worker-metrics", "operator", "/api/v1/analytics/worker-metrics", None),
    ("GET", "/api/v1/analytics/postgres-stats", "operator", "/api/v1/analytics/postgres-stats", None),
    ("GET", "/api/v1/analytics/queue-lag", "read-only", "/api/v1/analytics/queue-lag", None),
    ("GET", "/api/v1/analytics/queue-ops", "read-only", "/api/v1/analytics/queue-ops", None),
    ("GET", "/api/v1/analytics/queue-parked-replicas", "operator", "/api/v1/analytics/queue-parked-replicas", None),
    ("GET", "/api/v1/analytics/retention", "read-only", "/api/v1/analytics/retention", None),
    ("GET", "/api/v1/analytics/dead-letter-errors", "read-only", "/api/v1/analytics/dead-letter-errors", None),
    ("GET", "/api/v1/system/maintenance", "operator", "/api/v1/system/maintenance", None),
    ("POST", "/api/v1/system/maintenance", "operator", "/api/v1/system/maintenance", {"enabled": "not-a-boolean"}),
    ("GET", "/api/v1/system/maintenance/pop", "operator", "/api/v1/system/maintenance/pop", None),
    ("POST", "/api/v1/system/maintenance/pop", "operator", "/api/v1/system/maintenance/pop", {"enabled": "no"}),
    ("GET", "/api/v1/system/log-level", "operator", "/api/v1/system/log-level", None),
    ("POST", "/api/v1/system/log-level", "operator", "/api/v1/system/log-level", {"level": "loud"}),
    ("GET", "/api/v1/system/shared-state", "operator", "/api/v1/system/shared-state", None),
    ("GET", "/api/v1/kv/:key", "read-only", "/api/v1/kv/auth-it-key", None),
    ("PUT", "/api/v1/kv/:key", "read-write", "/api/v1/kv/auth-it-key", {"value": {"v": 1}}),
    ("DELETE", "/api/v1/kv/:key", "read-write", "/api/v1/kv/auth-it-key", None),
    # consumer-group administration
    ("GET", "/api/v1/consumer-groups", "read-only", "/api/v1/consumer-groups", None),
    ("GET", "/api/v1/consumer-groups/lagging", "read-only", "/api/v1/consumer-groups/lagging?minLagSeconds=60", None),
    ("GET", "/api/v1/consumer-groups/:group", "read-only", "/api/v1/consumer-groups/auth-group", None),
    ("DELETE", "/api/v1/consumer-groups/:group", "admin", "/api/v1/consumer-groups/auth-group", None),
    ("POST", "/api/v1/consumer-groups/:group/subscription", "read-write",
     "/api/v1/consumer-groups/auth-group/subscription", {"subscriptionTimestamp": "2025-03-01T00:00:00Z"}),
    ("DELETE", "/api/v1/consumer-groups/:group/queues/:queue", "admin",
     f"/api/v1/consumer-groups/auth-group/queues/{Q}", None),
    ("POST", "/api/v1/consumer-groups/:group/queues/:queue/seek", "read-write",
     f"/api/v1/consumer-groups/auth-group/queues/{Q}/seek", {"toEnd": True}),
    ("POST", "/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek", "read-write",
     f"/api/v1/consumer-groups/auth-group/queues/{Q}/partitions/Default/seek", None),
    ("GET", "/openapi.json", "public", "/openapi.json", None),
    # message administration: traces, messages, partitions, DLQ requeue/delete
    ("POST", "/api/v1/traces", "read-write", "/api/v1/traces",
     {"transactionId": "t", "partitionId": NO_ID, "data": {}}),
    ("GET", "/api/v1/traces/names", "read-only", "/api/v1/traces/names", None),
    ("GET", "/api/v1/traces/by-name/:traceName", "read-only", "/api/v1/traces/by-name/auth-it", None),
    ("GET", "/api/v1/traces/:partitionId/:transactionId", "read-only", f"/api/v1/traces/{NO_ID}/t", None),
    ("GET", "/api/v1/messages", "read-only", f"/api/v1/messages?queue={Q}", None),
    ("GET", "/api/v1/messages/:partitionId/:transactionId", "read-only", f"/api/v1/messages/{NO_ID}/t", None),
    ("DELETE", "/api/v1/messages/:partitionId/:transactionId", "read-write", f"/api/v1/messages/{NO_ID}/t", None),
    ("POST", "/api/v1/messages/:partitionId/:transactionId/retry", "read-write",
     f"/api/v1/messages/{NO_ID}/t/retry", None),
    ("POST", "/api/v1/messages/:partitionId/:transactionId/dlq", "read-write", f"/api/v1/messages/{NO_ID}/t/dlq",
     None),
    ("DELETE", "/api/v1/queues/:queue/clear", "admin", f"/api/v1/queues/{quote(unique_name('none'))}/clear",
     None),
    ("GET", "/api/v1/resources/partitions", "read-only", f"/api/v1/resources/partitions?queue={Q}", None),
    ("POST", "/api/v1/dlq/requeue", "admin", "/api/v1/dlq/requeue", {"queue": Q}),
    ("POST", "/api/v1/dlq/:messageId/requeue", "admin", f"/api/v1/dlq/{NO_ID}/requeue", None),
    ("DELETE", "/api/v1/dlq", "admin", f"/api/v1/dlq?queue={Q}", None),
    ("DELETE", "/api/v1/dlq/:messageId", "admin", f"/api/v1/dlq/{NO_ID}", None),
    ("GET", "/", "public", "/", None),
    ("GET", "/dashboard/:build/:asset", "public", "/dashboard/any-build/main.js", None),
]


@pytest.fixture(scope="module")
def hs_broker(pg):
    env = {"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ISSUER": ISSUER, "JWT_AUDIENCE": AUDIENCE,
           "LOG_LEVEL": "debug"}
    broker = Broker(pg=pg, name="it-auth-hs", env=env).start()
    yield broker
    broker.stop()


def call(client, method, path, body=None, token=None):
    return client.request(method, path, json=body, headers=bearer(token) if token else None)


def test_the_route_table_here_is_the_documented_one():
    with open(OPENAPI_DOCUMENT) as fh:
        paths = json.load(fh)["paths"]
    documented = {(method.upper(), re.sub(r"\{([^}]+)\}", r":\1", path), operation["x-access-level"])
                  for path, operations in paths.items() for method, operation in operations.items()}
    assert documented, "no paths in " + OPENAPI_DOCUMENT
    assert {(m, p, level) for m, p, level, _, _ in ROUTES} == documented


@pytest.mark.parametrize("method,pattern,level,path,body", ROUTES, ids=[f"{r[0]} {r[1]}" for r in ROUTES])
def test_every_route_at_every_level(hs_broker, method, pattern, level, path, body):
    # An admin token without a tenant claim is the operator; with one, it is that tenant's admin.
    tokens = {"read-only": hs256("read-only"), "read-write": hs256("read-write"),
              "admin": hs256(roles=["admin"], tenant="globex"), "operator": hs256(roles=["admin"]),
              "no role": hs256("guest")}
    with hs_broker.client() as client:
        anonymous = call(client, method, path, body)
        if level == "public":
            assert anonymous.status not in (401, 403), anonymous
        else:
            assert anonymous.status == 401, anonymous
            assert anonymous.body == {"error": "Authentication required"}
            assert anonymous.header("WWW-Authenticate", "").startswith("Bearer")
        for holder, token in tokens.items():
            resp = call(client, method, path, body, token)
            assert resp.status != 401, (holder, resp)
            allowed = level == "public" or (holder != "no role" and LEVELS[holder] >= LEVELS[level])
            if allowed:
                assert resp.status != 403, (holder, resp)
                assert resp.status < 500, (holder, resp)
            else:
                assert resp.status == 403, (holder, resp)
                expected = OPERATOR_REFUSAL if level == "operator" and holder != "no role" else "Insufficient permissions"
                assert resp.body == {"error": expected}


def test_cell_controls_refuse_a_tenant_admin_and_change_nothing(broker_factory, temp_database):
    """Issue 20, item 6: {role: admin, tenant: globex} is globex's admin, not the cell's: maintenance (push and pop),
    the spool state and the statistics refresh answer it 403, and a refused POST leaves the flag as it was."""
    db = temp_database()  # the flags are cell-wide: keep them out of the shared database
    env = {"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ISSUER": ISSUER, "JWT_AUDIENCE": AUDIENCE}
    broker = broker_factory(pg=db.target, name=f"it-auth-operator-{unique_name('b')}", env=env)
    tenant_admin = hs256("admin", tenant="globex")
    operator = hs256("admin")
    with broker.client() as client:
        for path in ("/api/v1/system/maintenance", "/api/v1/system/maintenance/pop"):
            assert call(client, "POST", path, {"enabled": True}, operator).status == 200
        for method, path, body in [("GET", "/api/v1/system/maintenance", None),
                                   ("POST", "/api/v1/system/maintenance", {"enabled": False}),
                                   ("GET", "/api/v1/system/maintenance/pop", None),
                                   ("POST", "/api/v1/system/maintenance/pop", {"enabled": False}),
                                   ("GET", "/api/v1/status/buffers", None),
                                   ("POST", "/api/v1/stats/refresh", None),
                                   ("GET", "/api/v1/system/shared-state", None),
                                   ("GET", "/api/v1/analytics/system-metrics", None),
                                   ("GET", "/api/v1/analytics/postgres-stats", None)]:
            refused = call(client, method, path, body, tenant_admin)
            assert refused.status == 403, (method, path, refused)
            assert refused.body == {"error": OPERATOR_REFUSAL}, (method, path, refused)
            assert call(client, method, path, body if method == "GET" else None, operator).status != 403
        # Both flags are still on, in the database and as the operator reads them.
        assert schema.system_flag(db.target, "maintenance") is True
        assert schema.system_flag(db.target, "pop_maintenance") is True
        status = call(client, "GET", "/api/v1/system/maintenance", None, operator)
        assert status.status == 200 and status.body["maintenanceMode"] is True, status
        assert call(client, "GET", "/api/v1/system/maintenance/pop", None, operator).body["popMaintenanceMode"] is True
        # The tenant admin keeps its own tenant's administration.
        assert call(client, "DELETE", f"/api/v1/resources/queues/{unique_name('none')}", None, tenant_admin).status != 403
        for path in ("/api/v1/system/maintenance", "/api/v1/system/maintenance/pop"):
            assert call(client, "POST", path, {"enabled": False}, operator).status == 200
        assert schema.system_flag(db.target, "maintenance") is False


def test_unknown_paths_need_a_token_then_answer_404(hs_broker):
    with hs_broker.client() as client:
        assert client.get("/api/v1/no-such-route").status == 401
        assert call(client, "GET", "/api/v1/no-such-route", token=hs256("guest")).status == 404
        assert call(client, "PATCH", "/api/v1/push", token=hs256("read-only")).status == 405
        assert client.get("/").status == 200  # "/" is public (JWT_SKIP_PATHS default): the dashboard's page
        assert client.options("/api/v1/push").status == 204  # CORS preflights carry no credentials


def refused_tokens():
    now = int(time.time())
    good = hs256("admin")
    header, payload, signature = good.split(".")
    other_rsa = rsa_key()
    return [
        ("alg none", jwt.encode({"sub": "x", "role": "admin", "iss": ISSUER, "aud": AUDIENCE}, None, algorithm="none"),
         "Invalid token: algorithm 'none' is not allowed"),
        ("wrong algorithm", jwt.encode({"role": "admin", "iss": ISSUER, "aud": AUDIENCE}, SECRET, algorithm="HS512"),
         "Invalid token: algorithm not allowed"),
        ("RS256 on an HS256 broker", signed(other_rsa), "Invalid token: algorithm not allowed"),
        ("bad signature", hs256("admin", secret="another-secret-of-the-same-length-xyz"),
         "Invalid token: signature verification failed"),
        ("tampered claims", f"{header}.{hs256('admin', sub='mallory').split('.')[1]}.{signature}",
         "Invalid token: signature verification failed"),
        ("expired", hs256("admin", exp=now - 3600), "Token has expired"),
        ("not yet valid", hs256("admin", nbf=now + 3600), "Token is not yet valid"),
        ("wrong issuer", hs256("admin", iss="https://elsewhere.test"), "Invalid token: wrong issuer"),
        ("wrong audience", hs256("admin", aud="someone-else"), "Invalid token: wrong audience"),
        ("garbage", "not-a-token", "Invalid token: malformed (expected header.payload.signature)"),
        ("truncated", good[: len(good) // 2], None),
        ("bad base64", "e30=." + payload + "." + signature, "Invalid token: malformed (header is not base64url)"),
        ("header not an object", "WzFd." + payload + "." + signature,
         "Invalid token: malformed (header is not a JSON object)"),
        ("oversized", "a" * 9000, "Invalid token: longer than 8192 bytes"),
        ("bad tenant", hs256("admin", tenant="no spaces allowed"),
         "Invalid token: the tenant claim must be 1 to 64 characters of A-Z a-z 0-9 . _ -"),
        ("empty tenant", hs256("admin", tenant=""),
         "Invalid token: the tenant claim must be 1 to 64 characters of A-Z a-z 0-9 . _ -"),
    ]


@pytest.mark.parametrize("kind,token,message", refused_tokens(), ids=[t[0] for t in refused_tokens()])
def test_every_refused_token_kind_answers_401_with_its_reason(hs_broker, kind, token, message):
    with hs_broker.client() as client:
        resp = call(client, "GET", "/api/v1/system/maintenance", token=token)
    assert resp.status == 401, (kind, resp)
    assert resp.header("WWW-Authenticate") == 'Bearer realm="queen", error="invalid_token"'
    if message:
        assert resp.body == {"error": message}, kind
    else:
        assert resp.body["error"].startswith("Invalid token"), resp
    assert token[-20:] not in resp.raw.decode("utf-8", "replace")


def test_a_token_without_bearer_prefix_and_within_the_skew(hs_broker):
    with hs_broker.client() as client:
        raw = client.get("/api/v1/system/maintenance", headers={"Authorization": hs256("admin")})
        lower = client.get("/api/v1/system/maintenance", headers={"Authorization": "bearer " + hs256("admin")})
        # Expired 10 s ago: inside the default 30 s skew.
        skewed = call(client, "GET", "/api/v1/system/maintenance", token=hs256("admin", exp=int(time.time()) - 10))
        # A tenant's admin (tenant claim): its own tenant's routes, not the cell's maintenance.
        valid_tenant = call(client, "GET", "/api/v1/resources/overview", token=hs256("admin", tenant="acme-eu.1"))
    assert [raw.status, lower.status, skewed.status, valid_tenant.status] == [200, 200, 200, 200]


def js_client_request(client, method, path, token, body=None):
    """As the official JS client sends it with `bearerToken` set: JSON content type and the bearer header on every
    request, GET and DELETE included."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    return client.request(method, path, data=None if body is None else json.dumps(body), headers=headers)


def test_requests_as_the_js_client_sends_them_with_a_bearer_token(hs_broker):
    token = hs256("read-write", sub="js-producer")
    queue = unique_name("auth-js")
    with hs_broker.client() as client:
        assert js_client_request(client, "POST", "/api/v1/configure", token, {"queue": queue}).status == 200
        pushed = js_client_request(client, "POST", "/api/v1/push", token,
                                   {"items": [{"queue": queue, "transactionId": "js-1", "payload": {"n": 1}}]})
        assert pushed.status == 201, pushed
        popped = js_client_request(client, "GET", f"/api/v1/pop/queue/{queue}?batch=1&wait=false", token)
        assert popped.status == 200, popped
        message = popped.body["messages"][0]
        acked = js_client_request(client, "POST", "/api/v1/ack", token,
                                  {"transactionId": message["transactionId"], "partitionId": message["partitionId"],
                                   "leaseId": popped.body.get("leaseId"), "status": "completed"})
        assert acked.status == 200, acked
        assert js_client_request(client, "GET", "/health", token).status == 200
        # A long poll behind the gate parks and answers later, as without authentication.
        parked = js_client_request(client, "GET", f"/api/v1/pop/queue/{queue}?wait=true&timeout=300", token)
        assert parked.status == 204, parked
        # The same client with an expired token is refused with the reason, which the JS client shows as its error.
        expired = hs256("read-write", exp=int(time.time()) - 3600)
        assert js_client_request(client, "GET", f"/api/v1/pop/queue/{queue}", expired).body == \
            {"error": "Token has expired"}
        # Public routes do not look at the token at all.
        assert js_client_request(client, "GET", "/health", expired).status == 200


def test_rs256_public_key_and_jwt_skip_paths(pg):
    key = rsa_key()
    env = {"JWT_ENABLED": "true", "JWT_ALGORITHM": "RS256", "JWT_PUBLIC_KEY": public_pem(key),
           "JWT_SKIP_PATHS": "/health,/api/v1/status/"}
    broker = Broker(pg=pg, name="it-auth-rs", env=env).start()
    try:
        with broker.client() as client:
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(key)).status == 200
            assert call(client, "GET", "/api/v1/system/maintenance",
                        token=signed(key, role="read-only")).status == 403
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(rsa_key())).body == \
                {"error": "Invalid token: signature verification failed"}
            # Algorithm confusion: an HS256 token whose HMAC key is the public key's PEM.
            confused = hs256_signed_with_any_text(public_pem(key), claims(role="admin"))
            assert call(client, "GET", "/api/v1/system/maintenance", token=confused).body == \
                {"error": "Invalid token: algorithm not allowed"}
            # JWT_SKIP_PATHS: a prefix entry opens what is under it; /metrics stays public (a public route).
            assert client.get("/api/v1/status/buffers").status == 200
            assert client.get("/metrics").status == 200
            assert client.get("/api/v1/dlq").status == 401
            assert client.get("/").status == 200  # no longer listed, but the dashboard's page is a public route
    finally:
        broker.stop()


def test_eddsa_public_key(pg):
    key = ed25519_key()
    env = {"JWT_ENABLED": "true", "JWT_ALGORITHM": "EdDSA", "JWT_PUBLIC_KEY": public_pem(key).replace("\n", "\\n")}
    broker = Broker(pg=pg, name="it-auth-ed", env=env).start()
    try:
        with broker.client() as client:
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(key)).status == 200
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(ed25519_key())).status == 401
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(rsa_key())).body == \
                {"error": "Invalid token: algorithm not allowed"}
    finally:
        broker.stop()


@pytest.fixture
def jwks():
    server = JwksServer()
    yield server
    server.close()


def admin_status(client, token):
    return call(client, "GET", "/api/v1/system/maintenance", token=token).status


def test_jwks_keys_by_kid_and_rotation_without_restart(pg, jwks):
    first, second = rsa_key(), ed25519_key()
    jwks.keys = [jwk(first, "k1")]
    env = {"JWT_ENABLED": "true", "JWT_ALGORITHM": "auto", "JWT_JWKS_URL": jwks.url}
    broker = Broker(pg=pg, name="it-auth-jwks", env=env).start()
    try:
        with broker.client() as client:
            assert admin_status(client, signed(first, kid="k1")) == 200
            assert call(client, "GET", "/api/v1/system/maintenance", token=signed(second, kid="k2")).body == \
                {"error": "Invalid token: unknown signing key"}
            # The issuer rotates: k2 appears. The unknown kid makes the broker fetch again in the background.
            jwks.keys = [jwk(first, "k1"), jwk(second, "k2")]
            fetched = jwks.requests
            poll_until(lambda: admin_status(client, signed(second, kid="k2")) == 200, timeout=20,
                       what="the rotated EdDSA key is accepted")
            assert jwks.requests > fetched
            assert admin_status(client, signed(first, kid="k1")) == 200
            # No HS256 without JWT_SECRET, even in auto mode.
            assert admin_status(client, hs256("admin")) == 401
    finally:
        broker.stop()


def test_jwks_refresh_interval_and_a_failing_fetch_keeps_the_last_good_keys(pg, jwks):
    key, retired = ed25519_key(), rsa_key()
    jwks.keys = [jwk(key, "live"), jwk(retired, "old")]
    env = {"JWT_ENABLED": "true", "JWT_ALGORITHM": "auto", "JWT_JWKS_URL": jwks.url,
           "JWT_JWKS_REFRESH_INTERVAL": "1", "JWT_JWKS_TIMEOUT_MS": "2000"}
    broker = Broker(pg=pg, name="it-auth-jwks-refresh", env=env).start()
    try:
        with broker.client() as client:
            assert admin_status(client, signed(retired, kid="old")) == 200
            jwks.keys = [jwk(key, "live")]
            poll_until(lambda: admin_status(client, signed(retired, kid="old")) == 401, timeout=20,
                       what="the retired key is dropped by the periodic refresh")
            since = broker.log_size()
            jwks.status = 500
            broker.wait_for_log("keeping the 1 key(s) of the last good fetch", since=since, timeout=20)
            assert admin_status(client, signed(key, kid="live")) == 200
    finally:
        broker.stop()
    broker_lines = [line for line in broker.log_text().splitlines() if not line.startswith("=== harness")]
    assert not [line for line in broker_lines if jwks.url in line]  # the URL may carry credentials


@pytest.mark.parametrize("env,needle", [
    ({"JWT_ENABLED": "true"}, "needs JWT_SECRET"),
    ({"JWT_ENABLED": "true", "JWT_ALGORITHM": "RS256"}, "needs JWT_PUBLIC_KEY or JWT_JWKS_URL"),
    ({"JWT_ENABLED": "true", "JWT_ALGORITHM": "RS256", "JWT_PUBLIC_KEY": "not a key"},
     "JWT_PUBLIC_KEY is not a PEM public key"),
    ({"JWT_ENABLED": "true", "JWT_ALGORITHM": "HS384", "JWT_SECRET": SECRET}, "JWT_ALGORITHM='HS384'"),
], ids=["no secret", "no public key", "bad pem", "bad algorithm"])
def test_enabled_without_usable_keys_does_not_boot(pg, env, needle):
    broker = Broker(pg=pg, name=f"it-auth-boot-{unique_name('b')}", env=env).start(wait=False)
    for _ in attempts(20):
        if not broker.alive:
            break
    assert broker.returncode == 2, broker.log_tail()
    assert needle in broker.log_text()
