"""Tenants end to end and producerSub (docs/tenants.md), with JWT bearer tokens minted here.

Two tenants both own a queue of the same name and never see each other's messages, acks, dead
letters, KV keys or transactions; the token's `sub` is stamped on every pushed message (direct,
transaction, spooled during push maintenance) and a producerSub sent by the client is ignored.

The module starts its broker with token verification on (JWT_ENABLED) and fails, rather than
skips, when that broker still answers an unauthenticated request: with authentication off every
request would be the default tenant's and the isolation checks below would prove nothing.
"""
import time

import jwt
import pytest

from harness import Broker, poll_until, unique_name
from harness.api import ack_item

SECRET = "tenants-test-secret-0123456789abcdef"


def token(sub, tenant=None, role="read-write"):
    claims = {"sub": sub, "role": role, "iat": int(time.time()), "exp": int(time.time()) + 3600}
    if tenant is not None:
        claims["tenant"] = tenant
    return jwt.encode(claims, SECRET, algorithm="HS256")


@pytest.fixture(scope="module")
def broker(module_database):
    # Push maintenance (the spool test) is cluster-wide: off the shared database.
    instance = Broker(pg=module_database, name="it-tenants",
                      env={"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ALGORITHM": "HS256"}).start()
    with instance.client() as probe:
        status = probe.dlq().status
    if status != 401:
        instance.stop()
        pytest.fail(f"a broker started with JWT_ENABLED=true answered {status} to a request without a "
                    "token (expected 401): authentication is off", pytrace=False)
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def as_user(broker):
    clients = []

    def make(sub, tenant=None, role="read-write"):
        c = broker.client()
        c.default_headers["Authorization"] = f"Bearer {token(sub, tenant, role)}"
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def pop_all(client, queue, **kw):
    return client.pop_messages(queue, batch=100, **kw)


def test_same_queue_name_in_two_tenants_is_isolated_and_stamped(as_user):
    acme, globex = as_user("alice", "acme"), as_user("gina", "globex")
    queue = unique_name("orders")
    assert acme.push_one(queue, {"from": "acme"}, producerSub="mallory").status == 201
    assert globex.push_one(queue, {"from": "globex"}).status == 201
    a = poll_until(lambda: pop_all(acme, queue), what="acme's message")
    g = poll_until(lambda: pop_all(globex, queue), what="globex's message")
    assert [m["data"] for m in a] == [{"from": "acme"}]
    assert [m["data"] for m in g] == [{"from": "globex"}]
    assert a[0]["producerSub"] == "alice", "the token's sub, not the client's producerSub"
    assert g[0]["producerSub"] == "gina"


def test_a_token_without_the_tenant_claim_is_the_default_tenant(as_user):
    default, acme = as_user("dan"), as_user("alice", "acme")
    queue = unique_name("dflt")
    assert default.push_one(queue, {"n": 1}).status == 201
    assert pop_all(acme, queue) == []
    msgs = poll_until(lambda: pop_all(default, queue), what="default tenant's message")
    assert msgs[0]["producerSub"] == "dan"


def test_another_tenant_cannot_ack_or_extend_a_lease(as_user):
    acme, globex = as_user("alice", "acme"), as_user("gina", "globex")
    queue = unique_name("acks")
    acme.push_one(queue, {"n": 1})
    msg = poll_until(lambda: pop_all(acme, queue), what="acme pop")[0]
    stolen = globex.ack_batch([ack_item(msg)])
    assert stolen.status == 200 and stolen.body[0]["success"] is False, stolen
    extended = globex.extend_lease(msg["leaseId"], 30)
    assert extended.body.get("success") is False, extended
    own = acme.ack_batch([ack_item(msg)])
    assert own.body[0]["success"] is True, own


def test_dead_letters_kv_and_deletion_are_per_tenant(as_user):
    acme, globex = as_user("alice", "acme"), as_user("gina", "globex")
    queue = unique_name("dlqt")
    for client in (acme, globex):
        assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    acme.push_one(queue, {"n": 1})
    msg = poll_until(lambda: pop_all(acme, queue), what="acme pop")[0]
    assert acme.ack_batch([ack_item(msg, status="failed", error="boom")]).body[0]["dlq"] is True
    mine = acme.dlq(queue=queue).body
    assert mine["total"] == 1 and mine["messages"][0]["producerSub"] == "alice"
    assert globex.dlq(queue=queue).body["total"] == 0

    key = unique_name("key")
    assert acme.put(f"/api/v1/kv/{key}", {"value": "acme"}).status == 200
    assert globex.get(f"/api/v1/kv/{key}").status == 404
    assert globex.put(f"/api/v1/kv/{key}", {"value": "globex"}).status == 200
    assert acme.get(f"/api/v1/kv/{key}").body["value"] == "acme"

    globex_admin = as_user("gina", "globex", role="admin")  # deleting a queue is admin-only
    gone = globex_admin.delete(f"/api/v1/resources/queues/{queue}")
    assert gone.status == 200 and gone.body["existed"] is True
    assert acme.dlq(queue=queue).body["total"] == 1, "acme's queue of the same name survives"


def test_transaction_pushes_land_in_the_tenant_with_its_subject(as_user):
    acme, globex = as_user("alice", "acme"), as_user("gina", "globex")
    queue = unique_name("txn")
    resp = acme.post("/api/v1/transaction", {"operations": [
        {"type": "push", "items": [{"queue": queue, "payload": {"t": 1}, "producerSub": "mallory"}]}]})
    assert resp.status == 200 and resp.body["success"] is True, resp
    assert pop_all(globex, queue) == []
    msg = poll_until(lambda: pop_all(acme, queue), what="transaction push")[0]
    assert msg["producerSub"] == "alice"


def test_spooled_pushes_replay_into_the_tenants_queue(as_user):
    admin, acme, default = as_user("root", role="admin"), as_user("alice", "acme"), as_user("dan")
    queue = unique_name("spooled")
    assert admin.set_maintenance(True).status == 200
    try:
        resp = acme.push([{"queue": queue, "payload": {"i": i}} for i in range(3)])
        assert resp.status == 201 and {r["status"] for r in resp.body} == {"buffered"}, resp
    finally:
        assert admin.set_maintenance(False).status == 200
    got = acme.drain(queue, 3)
    assert sorted(m["data"]["i"] for m in got) == [0, 1, 2]
    assert {m["producerSub"] for m in got} == {"alice"}
    assert pop_all(default, queue) == [], "replay must not put acme's messages in the default tenant"


def test_stream_queries_are_per_tenant_and_their_pushes_carry_the_subject(as_user):
    acme, globex = as_user("alice", "acme"), as_user("gina", "globex")
    name, source, sink = unique_name("counts"), unique_name("src"), unique_name("sink")
    body = {"name": name, "source_queue": source, "config_hash": "h1"}
    a = acme.post("/streams/v1/queries", body).body
    g = globex.post("/streams/v1/queries", {**body, "config_hash": "h2"})
    assert g.status == 200 and g.body["fresh"] is True, "another tenant's query of the same name is its own"
    assert a["query_id"] != g.body["query_id"]
    shard = {"query_id": a["query_id"], "partition_id": a["query_id"]}
    refused = globex.post("/streams/v1/cycle", {**shard, "state_ops": [{"type": "upsert", "key": "k"}]})
    assert refused.body["success"] is False, "a query id of another tenant does not exist for it"
    done = acme.post("/streams/v1/cycle", {**shard, "state_ops": [{"type": "upsert", "key": "k", "value": 1}],
                                           "push_items": [{"queue": sink, "payload": {"n": 1}}]})
    assert done.body["success"] is True, done.body
    assert acme.post("/streams/v1/state/get", shard).body["rows"][0]["value"] == 1
    assert globex.post("/streams/v1/state/get", shard).body == {"success": True, "rows": []}
    assert pop_all(globex, sink) == []
    pushed = poll_until(lambda: pop_all(acme, sink), what="the cycle's push in acme's sink")
    assert pushed[0]["producerSub"] == "alice"
    reader = as_user("rita", "acme", role="read-only")
    assert reader.post("/streams/v1/state/get", shard).status == 200
    assert reader.post("/streams/v1/cycle", shard).status == 403
