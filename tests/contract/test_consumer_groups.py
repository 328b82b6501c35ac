"""Consumer-group administration (docs/http-api.md, consumer groups; docs/procedures.md, "Consumer-group
administration"): the listings, deletion, the subscription start and both seeks, sent the way the official clients
send them (JS percent-encodes the group with encodeURIComponent and sends Content-Type: application/json on every
request; Python sends no body at all for an empty dict; Go does not escape the group in some routes), with exact
keys, casing, types and status codes. A backwards seek re-exposes messages to the very next pop, on this broker and
on a second one (a long poll parked there is woken over the mesh), and every route stays inside the caller's tenant."""
import re
import time

import jwt
import pytest

from harness import ParkedPop, free_port, poll_until, unique_name
from harness.api import QUEUE_MODE, quote

JS_HEADERS = {"Content-Type": "application/json"}
MS_ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
SEEK_TARGET_MISSING = "Must specify either 'toEnd': true or 'timestamp'"

LIST_KEYS = {"name", "queueName", "topics", "members", "partitionsWithLag", "totalLag", "maxTimeLag", "state",
             "subscriptionMode", "subscriptionTimestamp", "subscriptionCreatedAt"}
LAGGING_KEYS = {"consumer_group", "queue_name", "partition_name", "partition_id", "worker_id", "offset_lag",
                "time_lag_seconds", "lag_hours", "oldest_unconsumed_at", "last_consumed_at"}
DETAIL_PARTITION_KEYS = {"partition", "workerId", "lastConsumedAt", "totalConsumed", "offsetLag", "timeLagSeconds",
                         "leaseActive"}


def group_path(group, *rest):
    return "/api/v1/consumer-groups/" + "/".join([quote(group)] + [quote(part) for part in rest])


def fill(client, queue, partitions=("p1", "p2"), per_partition=2):
    items = [{"queue": queue, "partition": p, "payload": {"p": p, "n": n}, "transactionId": f"{p}-{n}"}
             for p in partitions for n in range(per_partition)]
    resp = client.push(items)
    assert resp.status == 201 and all(r["status"] == "queued" for r in resp.body), resp
    return items


def consume_all(client, queue, group, expected):
    """Pop and ack every message of `queue` for `group`; returns the transaction ids delivered."""
    delivered = client.drain(queue, expected, consumer_group=group, partitions=10)
    assert len(delivered) == expected, delivered
    return sorted(m["transactionId"] for m in delivered)


def pop_ids(client, queue, group, **kw):
    return sorted(m["transactionId"] for m in client.pop_messages(queue, consumer_group=group, batch=100,
                                                                   partitions=10, **kw))


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# ------------------------------------------------------------------------------------------------ listings

def test_list_has_one_camel_case_row_per_group_and_queue(client):
    queue, group = unique_name("ct-cg-list"), unique_name("mailer")
    fill(client, queue)
    consume_all(client, queue, group, 4)
    assert client.pop(queue, wait=False).status == 200  # queue mode leases one partition
    resp = client.get("/api/v1/consumer-groups", headers=JS_HEADERS)
    assert resp.status == 200 and resp.header("Content-Type").startswith("application/json"), resp
    rows = {(r["name"], r["queueName"]): r for r in resp.body if r["queueName"] == queue}
    assert set(rows) == {(group, queue), (QUEUE_MODE, queue)}
    row = rows[(group, queue)]
    assert set(row) == LIST_KEYS
    assert row["topics"] == [queue]
    assert (row["members"], row["partitionsWithLag"], row["totalLag"], row["maxTimeLag"]) == (2, 0, 0, 0)
    assert row["state"] == "Stable"
    assert (row["subscriptionMode"], row["subscriptionTimestamp"], row["subscriptionCreatedAt"]) == ("all", None, None)
    queue_mode = rows[(QUEUE_MODE, queue)]
    assert set(queue_mode) == LIST_KEYS and queue_mode["state"] == "Dead"
    assert queue_mode["partitionsWithLag"] == 2 and queue_mode["totalLag"] == 4
    assert all(is_int(queue_mode[k]) for k in ("members", "partitionsWithLag", "totalLag", "maxTimeLag"))


def test_list_shows_the_subscription_record_of_a_group_that_joined_new(client):
    queue, group = unique_name("ct-cg-sub"), unique_name("late")
    fill(client, queue)
    assert client.pop(queue, consumer_group=group, subscription_mode="new").status == 204
    [row] = [r for r in client.get("/api/v1/consumer-groups").body if r["queueName"] == queue]
    assert row["subscriptionMode"] == "new"
    assert MS_ISO_RE.match(row["subscriptionTimestamp"]) and MS_ISO_RE.match(row["subscriptionCreatedAt"]), row


def test_lagging_lists_snake_case_rows_and_wins_over_the_group_route(client):
    queue, group = unique_name("ct-cg-lag"), unique_name("slow")
    fill(client, queue, partitions=("p1",), per_partition=3)
    assert client.pop(queue, consumer_group=group, batch=1).status == 200  # joined, holds a lease, 3 behind
    # Server default 3600 s and the JS client's default argument 60: nothing this young.
    for path in ("/api/v1/consumer-groups/lagging", "/api/v1/consumer-groups/lagging?minLagSeconds=60"):
        resp = client.get(path, headers=JS_HEADERS)
        assert resp.status == 200 and isinstance(resp.body, list), resp
        assert not [r for r in resp.body if r["queue_name"] == queue]
    resp = client.get("/api/v1/consumer-groups/lagging", params={"minLagSeconds": 0})
    [row] = [r for r in resp.body if r["queue_name"] == queue]
    assert set(row) == LAGGING_KEYS
    assert (row["consumer_group"], row["partition_name"], row["offset_lag"]) == (group, "p1", 3)
    assert is_int(row["time_lag_seconds"]) and isinstance(row["lag_hours"], (int, float))
    assert isinstance(row["worker_id"], str) and len(row["worker_id"]) == 36  # the live lease
    assert MS_ISO_RE.match(row["oldest_unconsumed_at"]) and row["last_consumed_at"] is None
    assert len(row["partition_id"]) == 36
    # An unreadable or negative minimum is the default.
    for bad in ("soon", "-5"):
        resp = client.get("/api/v1/consumer-groups/lagging", params={"minLagSeconds": bad})
        assert resp.status == 200 and not [r for r in resp.body if r["queue_name"] == queue]


def test_detail_is_keyed_by_queue_and_unknown_groups_are_empty(client):
    queue, other, group = unique_name("ct-cg-detail"), unique_name("ct-cg-detail2"), unique_name("grp/with space+ü")
    fill(client, queue)
    fill(client, other, partitions=("only",), per_partition=1)
    consume_all(client, queue, group, 4)
    assert client.pop(other, consumer_group=group).status == 200
    resp = client.get(group_path(group), headers=JS_HEADERS)
    assert resp.status == 200, resp
    assert set(resp.body) == {queue, other}
    assert set(resp.body[queue]) == {"partitions"}
    partitions = {p["partition"]: p for p in resp.body[queue]["partitions"]}
    assert set(partitions) == {"p1", "p2"}
    for p in partitions.values():
        assert set(p) == DETAIL_PARTITION_KEYS
        assert (p["totalConsumed"], p["offsetLag"], p["timeLagSeconds"], p["leaseActive"], p["workerId"]) == \
            (2, 0, 0, False, None)
        assert MS_ISO_RE.match(p["lastConsumedAt"])
    [leased] = resp.body[other]["partitions"]
    assert leased["leaseActive"] is True and isinstance(leased["workerId"], str)
    assert leased["lastConsumedAt"] is None and leased["offsetLag"] == 1
    unknown = client.get(group_path(unique_name("nobody")))
    assert unknown.status == 200 and unknown.body == {}


# ------------------------------------------------------------------------------------------------ deletion

def test_delete_group_everywhere_as_the_js_client_sends_it(client):
    queue, other, group = unique_name("ct-cg-del"), unique_name("ct-cg-del2"), unique_name("mail ers/ü")
    fill(client, queue)
    fill(client, other, partitions=("x",), per_partition=1)
    consume_all(client, queue, group, 4)
    consume_all(client, other, group, 1)
    # deleteConsumerGroup(group, true): DELETE /api/v1/consumer-groups/<encodeURIComponent(group)>?deleteMetadata=true
    resp = client.request("DELETE", group_path(group) + "?deleteMetadata=true", headers=JS_HEADERS)
    assert resp.status == 200, resp
    assert resp.body == {"success": True, "consumerGroup": group, "deletedPartitions": 3, "metadataDeleted": True}
    assert client.get(group_path(group)).body == {}
    # Re-created by its next pop, the group starts fresh: the whole history again.
    assert pop_ids(client, queue, group) == ["p1-0", "p1-1", "p2-0", "p2-1"]
    # Clients call it defensively before re-creating a group: an unknown group is 200 with 0.
    unknown = unique_name("never")
    resp = client.delete(group_path(unknown))
    assert resp.status == 200
    assert resp.body == {"success": True, "consumerGroup": unknown, "deletedPartitions": 0, "metadataDeleted": True}


def test_delete_group_unescaped_as_go_sends_it_and_keeping_metadata(client):
    queue, group = unique_name("ct-cg-go"), unique_name("gogroup")
    fill(client, queue, partitions=("p1",), per_partition=2)
    assert client.pop(queue, consumer_group=group, subscription_mode="new").status == 204
    resp = client.delete(f"/api/v1/consumer-groups/{group}", params={"deleteMetadata": "false"})
    assert resp.body == {"success": True, "consumerGroup": group, "deletedPartitions": 1, "metadataDeleted": False}
    # The subscription record survived: the re-created group still starts at its join time.
    assert pop_ids(client, queue, group) == []


def test_delete_group_on_one_queue(client):
    queue, other, group = unique_name("ct-cg-delq"), unique_name("ct-cg-delq2"), unique_name("g")
    fill(client, queue)
    fill(client, other, partitions=("x",), per_partition=1)
    consume_all(client, queue, group, 4)
    consume_all(client, other, group, 1)
    resp = client.request("DELETE", group_path(group, "queues", queue) + "?deleteMetadata=true", headers=JS_HEADERS)
    assert resp.status == 200, resp
    assert resp.body == {"success": True, "consumerGroup": group, "queueName": queue, "deletedPartitions": 2,
                         "metadataDeleted": True}
    assert set(client.get(group_path(group)).body) == {other}
    resp = client.delete(group_path(group, "queues", unique_name("nope")))
    assert resp.status == 200 and resp.body["deletedPartitions"] == 0 and resp.body["metadataDeleted"] is True


# ------------------------------------------------------------------------------------------------ subscription

def test_subscription_timestamp_update(client):
    queue, group = unique_name("ct-cg-ts"), unique_name("g")
    fill(client, queue, partitions=("p1",), per_partition=1)
    assert client.pop(queue, consumer_group=group, subscription_mode="new").status == 204
    # updateConsumerGroupTimestamp(group, timestamp)
    resp = client.post(group_path(group, "subscription"), {"subscriptionTimestamp": "2025-03-01T00:00:00Z"})
    assert resp.status == 200, resp
    assert resp.body == {"success": True, "consumerGroup": group, "newTimestamp": "2025-03-01T00:00:00Z",
                         "rowsUpdated": 1}
    [row] = [r for r in client.get("/api/v1/consumer-groups").body if r["queueName"] == queue]
    assert (row["subscriptionMode"], row["subscriptionTimestamp"]) == ("timestamp", "2025-03-01T00:00:00.000Z")
    resp = client.post(group_path(unique_name("none"), "subscription"), {"subscriptionTimestamp": "2025-03-01T00:00:00Z"})
    assert resp.status == 200 and resp.body["rowsUpdated"] == 0


@pytest.mark.parametrize("body", [{}, None, {"subscriptionTimestamp": None}], ids=["empty object", "no body", "null"])
def test_subscription_without_a_timestamp_is_400(client, body):
    resp = client.post(group_path("g", "subscription"), body)
    assert resp.status == 400 and resp.body == {"error": "Missing subscriptionTimestamp in request body"}, resp


def test_subscription_with_an_unreadable_timestamp_is_400(client):
    resp = client.post(group_path("g", "subscription"), {"subscriptionTimestamp": "yesterday"})
    assert resp.status == 400 and set(resp.body) == {"error"}, resp


# ------------------------------------------------------------------------------------------------ seek

def test_seek_backwards_to_a_timestamp_re_exposes_messages_to_the_next_pop(client):
    queue, group = unique_name("ct-cg-seek"), unique_name("replay")
    fill(client, queue, partitions=("p1",), per_partition=1)
    [first] = client.drain(queue, 1, consumer_group=group)
    fill(client, queue, partitions=("p2",), per_partition=2)
    consume_all(client, queue, group, 2)
    assert pop_ids(client, queue, group) == []
    # seek(group, queue, {timestamp}): the cursor goes to the last message at or before it
    resp = client.post(group_path(group, "queues", queue, "seek"), {"timestamp": first["createdAt"]},
                       headers=JS_HEADERS)
    assert resp.status == 200, resp
    assert set(resp.body) == {"success", "consumerGroup", "queueName", "seekToEnd", "targetTimestamp",
                              "partitionsUpdated"}
    assert resp.body["success"] is True and resp.body["seekToEnd"] is False
    assert (resp.body["consumerGroup"], resp.body["queueName"], resp.body["partitionsUpdated"]) == (group, queue, 2)
    assert resp.body["targetTimestamp"] == first["createdAt"][:23] + "Z"
    # p1's only message is at the timestamp (stays consumed); p2's came later: delivered again.
    assert pop_ids(client, queue, group) == ["p2-0", "p2-1"]


def test_seek_to_the_end_skips_everything_and_drops_leases(client):
    queue, group = unique_name("ct-cg-end"), unique_name("skip")
    fill(client, queue)
    assert client.pop(queue, consumer_group=group, batch=1).status == 200  # joined, one lease held
    resp = client.post(group_path(group, "queues", queue, "seek"), {"toEnd": True})
    assert resp.status == 200, resp
    assert resp.body == {"success": True, "consumerGroup": group, "queueName": queue, "seekToEnd": True,
                         "targetTimestamp": None, "partitionsUpdated": 2}
    assert pop_ids(client, queue, group) == []
    detail = client.get(group_path(group)).body[queue]["partitions"]
    assert [p["leaseActive"] for p in detail] == [False, False] and [p["offsetLag"] for p in detail] == [0, 0]
    client.push_one(queue, {"after": True}, partition="p1", transaction_id="after-seek")
    assert pop_ids(client, queue, group) == ["after-seek"]


@pytest.mark.parametrize("body", [{}, None, {"toEnd": False}, {"timestamp": None}],
                         ids=["empty object", "no body (Python)", "toEnd false", "null timestamp"])
def test_seek_without_a_target_is_400(client, body):
    resp = client.post(group_path("g", "queues", "q", "seek"), body)
    assert resp.status == 400 and resp.body == {"error": SEEK_TARGET_MISSING}, resp


def test_seek_with_an_unreadable_timestamp_is_400(client):
    resp = client.post(group_path("g", "queues", "q", "seek"), {"timestamp": "not a time"})
    assert resp.status == 400 and set(resp.body) == {"error"}, resp


def test_seek_on_an_unknown_queue_moves_nothing(client):
    resp = client.post(group_path("g", "queues", unique_name("nope"), "seek"), {"toEnd": True})
    assert resp.status == 200 and resp.body["partitionsUpdated"] == 0, resp


def test_partition_seek_moves_one_partition_to_its_end(client):
    queue, group = unique_name("ct-cg-pseek"), unique_name("g")
    fill(client, queue)
    assert client.pop(queue, consumer_group=group, batch=1, partition="p1").status == 200
    resp = client.post(group_path(group, "queues", queue, "partitions", "p1", "seek"))  # no body (Go CLI)
    assert resp.status == 200, resp
    assert set(resp.body) == {"success", "consumerGroup", "queueName", "partitionName", "updated", "cursorMovedTo"}
    assert (resp.body["success"], resp.body["updated"], resp.body["partitionName"]) == (True, True, "p1")
    assert MS_ISO_RE.match(resp.body["cursorMovedTo"]), resp
    assert pop_ids(client, queue, group) == ["p2-0", "p2-1"]


def test_partition_seek_on_an_unknown_partition_is_404(client):
    queue = unique_name("ct-cg-p404")
    fill(client, queue, partitions=("p1",), per_partition=1)
    resp = client.post(group_path("g", "queues", queue, "partitions", "nope", "seek"))
    assert resp.status == 404 and resp.body == {"error": "Partition not found"}, resp
    resp = client.post(group_path("g", "queues", unique_name("noq"), "partitions", "p1", "seek"))
    assert resp.status == 404 and resp.body == {"error": "Partition not found"}, resp


# ------------------------------------------------------------------------------------------------ two brokers

# A long re-check floor: a parked pop answered well before it was woken.
FLOOR_ENV = {"POP_WAIT_INITIAL_INTERVAL_MS": 8000, "POP_WAIT_MAX_INTERVAL_MS": 8000}
MESH_SECRET = "contract-mesh-secret"


def hears(client, sender):
    """True once this broker's /health says frames from `sender` arrive (its heartbeats mark it alive)."""
    state = client.health().body.get("shared_state") or {}
    return any(s.get("server_id") == sender and s.get("alive") is True for s in state.get("senders") or [])


def test_a_backwards_seek_reaches_pops_on_a_second_broker(broker_factory):
    ports = [free_port(), free_port()]
    env = [dict(FLOOR_ENV, QUEEN_MESH_PORT=ports[i], QUEEN_MESH_PEERS=f"127.0.0.1:{ports[1 - i]}",
                QUEEN_SYNC_SECRET=MESH_SECRET) for i in range(2)]
    first = broker_factory(name="ct-cg-mesh-a", env=env[0])
    second = broker_factory(name="ct-cg-mesh-b", env=env[1])
    queue, group = unique_name("ct-cg-two"), unique_name("g")
    with first.client() as a, second.client() as b:
        poll_until(lambda: hears(a, second.name) and hears(b, first.name), timeout=20,
                   what="the two brokers linked over the mesh")
        fill(a, queue, partitions=("p1",), per_partition=3)
        consume_all(b, queue, group, 3)
        # The very next pop on the other broker sees what the seek re-exposed.
        seek = a.post(group_path(group, "queues", queue, "seek"), {"timestamp": "2000-01-01T00:00:00Z"})
        assert seek.status == 200 and seek.body["partitionsUpdated"] == 1, seek
        assert pop_ids(b, queue, group, auto_ack=True) == ["p1-0", "p1-1", "p1-2"]
        # A long poll parked on the second broker is woken by a seek on the first.
        parked = ParkedPop(second, queue, timeout_ms=20000, consumer_group=group).wait_parked()
        assert parked.ended is None, parked.response
        seek = a.post(group_path(group, "queues", queue, "seek"), {"timestamp": "2000-01-01T00:00:00Z"})
        sought_at = time.monotonic()
        assert seek.status == 200, seek
        resp = parked.result(timeout=30)
        assert resp.status == 200 and len(resp.body["messages"]) >= 1, resp
        assert parked.ended - sought_at < 4.0, f"answered {parked.ended - sought_at:.2f}s after the seek"


# ------------------------------------------------------------------------------------------------ tenants

JWT_SECRET = "ct-consumer-groups-secret-0123456789abcdef"


def token(tenant, role="admin"):
    now = int(time.time())
    return jwt.encode({"sub": "ct", "role": role, "tenant": tenant, "iat": now, "exp": now + 600}, JWT_SECRET,
                      algorithm="HS256")


def test_every_route_stays_inside_the_callers_tenant(broker_factory):
    broker = broker_factory(name="ct-cg-tenants", env={"JWT_ENABLED": "true", "JWT_SECRET": JWT_SECRET})
    queue, group = unique_name("ct-cg-ten"), unique_name("g")
    acme = {"Authorization": f"Bearer {token('acme')}"}
    globex = {"Authorization": f"Bearer {token('globex')}"}
    with broker.client() as c:
        resp = c.post("/api/v1/push", {"items": [{"queue": queue, "partition": "p1", "payload": {"n": 1},
                                                  "transactionId": "t1"}]}, headers=acme)
        assert resp.status == 201, resp
        popped = c.get(f"/api/v1/pop/queue/{queue}", params={"consumerGroup": group, "autoAck": "true"}, headers=acme)
        assert popped.status == 200, popped
        # globex sees nothing of acme's group and cannot move or delete it
        assert not [r for r in c.get("/api/v1/consumer-groups", headers=globex).body if r["queueName"] == queue]
        assert c.get(group_path(group), headers=globex).body == {}
        assert not [r for r in c.get("/api/v1/consumer-groups/lagging?minLagSeconds=0", headers=globex).body
                    if r["queue_name"] == queue]
        seek = c.post(group_path(group, "queues", queue, "seek"), {"timestamp": "2000-01-01T00:00:00Z"},
                      headers=globex)
        assert seek.status == 200 and seek.body["partitionsUpdated"] == 0, seek
        part = c.post(group_path(group, "queues", queue, "partitions", "p1", "seek"), headers=globex)
        assert part.status == 404, part
        deleted = c.delete(group_path(group), headers=globex)
        assert deleted.status == 200 and deleted.body["deletedPartitions"] == 0, deleted
        # acme still has it, consumed
        [row] = [r for r in c.get("/api/v1/consumer-groups", headers=acme).body if r["queueName"] == queue]
        assert (row["name"], row["members"], row["totalLag"]) == (group, 1, 0)
        # read-only tokens may list but not seek; read-write may seek but not delete
        read_only = {"Authorization": f"Bearer {token('acme', 'read-only')}"}
        read_write = {"Authorization": f"Bearer {token('acme', 'read-write')}"}
        assert c.get("/api/v1/consumer-groups", headers=read_only).status == 200
        assert c.post(group_path(group, "queues", queue, "seek"), {"toEnd": True}, headers=read_only).status == 403
        assert c.post(group_path(group, "queues", queue, "seek"), {"toEnd": True}, headers=read_write).status == 200
        assert c.delete(group_path(group), headers=read_write).status == 403
        assert c.delete(group_path(group), headers=acme).body["deletedPartitions"] == 1
