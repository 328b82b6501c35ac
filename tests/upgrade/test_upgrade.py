"""From the previous release to this tree without dropping a row (docs/upgrading.md).

One story, in order, on one scratch database:
 1. the schema of the previous release (`sqitch deploy --to @TAG`), its broker fills it through the HTTP API with
    every kind of state: pending, leased (the lease is held across the upgrade), completed, dead-lettered,
    retried, timers, KV with TTL, two tenants and the default one, consumer groups with cursors, encrypted
    payloads, traces;
 2. the rolling upgrade: `sqitch deploy` to HEAD while that broker runs; every row of every table is as it was,
    and the previous broker keeps serving against the new schema;
 3. the current broker starts beside it (both serve the database, each delivering what the other stored), the
    previous one stops, and the current one serves the old state:
    pops deliver the old messages in order, acks and renewals of the old leases work, timers fire, KV reads,
    the DLQ lists, traces read;
 4. back the other way, brokers first: the previous release's broker replaces the current one, then
    `sqitch revert --to @TAG` under it: every row of the release's tables kept, and that broker serves them;
 5. `sqitch deploy` again under it: every row kept, and the current broker, started in its place, serves them.
"""
import base64
import hashlib
import hmac
import json
import time

import pytest

from harness import Broker, TempDatabase, poll_until
from harness import env as harness_env
from harness import schema
from harness.api import ack_item

JWT_SECRET = "upgrade-suite-jwt-secret-0123456789abcdef"
ENCRYPTION_KEY = "5c" * 16 + "a1b2c3d4" * 4
BROKER_ENV = {"JWT_ENABLED": "true", "JWT_SECRET": JWT_SECRET, "JWT_ALGORITHM": "HS256",
              "QUEEN_ENCRYPTION_KEY": ENCRYPTION_KEY}
LEASE_S = 600              # the leases taken before the upgrade outlive the whole suite
KV_TTL_MS = 3_600_000
# A timer is pushed this long before it is due: it must still be pending when the current broker has
# started (fill + deploy + start take about 10 s on a busy 2-core box), and the suite waits the rest.
TIMER_DELAY_S = 40
# Statistics the brokers' background jobs rewrite every cycle (docs/operations-stats.md): not state a
# client put there, and not comparable between two reads while a broker runs.
STATISTICS_TABLES = ("broker_stats_minutes", "job_runs", "queue_stats", "queue_stats_minutes")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(role, tenant=None):
    """An HS256 token for BROKER_ENV's secret (standard library: the suite needs no PyJWT)."""
    now = int(time.time())
    claims = {"sub": f"upgrade-{tenant or 'default'}", "role": role, "iat": now, "exp": now + 3600}
    if tenant is not None:
        claims["tenant"] = tenant
    signing_input = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + \
        b64url(json.dumps(claims).encode())
    signature = hmac.new(JWT_SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64url(signature)}"


class Story:
    """What the previous broker stored, and what every later step expects of it."""

    def __init__(self, release, database):
        self.release = release
        self.db = database
        self.brokers = []
        self.leases = {}        # partition -> (lease id, the messages it holds)
        self.ids = {}           # transaction id -> partition id (traces, message reads)
        self.kv = {}            # (tenant, key) -> (value, expiresAt)
        self.timer_due = None   # epoch seconds
        self.orders_left = {}   # partition -> transaction ids not yet delivered, in push order
        self.schema_versions = []  # queen.schema_version() of the release, then of HEAD

    def broker(self, which, name):
        binary = self.release.broker_binary if which == "previous" else harness_env.broker_binary()
        instance = Broker(pg=self.db, name=name, binary=binary, env=BROKER_ENV)
        self.brokers.append(instance)
        return instance.start()

    def client(self, broker, role="admin", tenant=None):
        c = broker.client()
        c.default_headers["Authorization"] = f"Bearer {token(role, tenant)}"
        return c


@pytest.fixture(scope="module")
def story(release, pg):
    database = TempDatabase(pg, deploy_to=release.target).create()
    state = Story(release, database.target)
    yield state
    for broker in state.brokers:
        broker.stop()
    database.drop()


def ok(resp, status=200):
    assert resp.status == status, resp
    return resp.body


def push(client, queue, partition, txids, payload=lambda t: {"t": t}, **extra):
    body = ok(client.push([dict({"queue": queue, "partition": partition, "transactionId": t,
                                 "payload": payload(t)}, **extra) for t in txids]), 201)
    assert all(item["status"] == "queued" for item in body), body


def pop(client, queue, partition=None, batch=10, **kw):
    return client.pop_messages(queue, partition=partition, batch=batch, **kw)


def acked(client, messages, status="completed", error=None, consumer_group=None):
    body = ok(client.ack_batch([ack_item(m, status=status, error=error) for m in messages],
                               consumer_group=consumer_group))
    assert [r.get("success") for r in body] == [True] * len(messages), body
    return body


def txids(messages):
    return [m["transactionId"] for m in messages]


def compare_rows(before, after, what):
    """Every table in both snapshots holds the same rows, read through the columns both have (a later change may
    add columns, a revert drops them). Returns (problems, tables of `before` that `after` lacks)."""
    problems = []
    for table in sorted(set(before) & set(after)):
        old, new = before[table], after[table]
        if not old or not new:
            if old or new:
                problems.append(f"{table}: {len(old)} rows before {what}, {len(new)} after")
            continue
        columns = set(old[0]) & set(new[0])
        seen = [sorted(json.dumps({k: r[k] for k in columns}, sort_keys=True) for r in rows) for rows in (old, new)]
        if seen[0] != seen[1]:
            lost = [r for r in seen[0] if r not in seen[1]][:3]
            gained = [r for r in seen[1] if r not in seen[0]][:3]
            problems.append(f"{table}: rows differ after {what}; before only: {lost}; after only: {gained}")
    return problems, sorted(set(before) - set(after))


def schema_version(db):
    return db.scalar("select queen.schema_version() as version")


def test_the_previous_release_fills_every_kind_of_state(story):
    story.schema_versions = [schema_version(story.db)]
    prev = story.broker("previous", "upgrade-prev")
    admin, acme, globex = (story.client(prev), story.client(prev, "read-write", "acme"),
                           story.client(prev, "read-write", "globex"))
    leased = dict(leaseTime=LEASE_S)

    # Pending and completed, two partitions: the first two of p1 completed, the rest pending.
    ok(admin.configure("orders", leased))
    for partition in ("p1", "p2"):
        push(admin, "orders", partition, [f"o-{partition}-{i}" for i in range(6)])
    first = pop(admin, "orders", "p1", batch=2)
    assert txids(first) == ["o-p1-0", "o-p1-1"]
    acked(admin, first)
    story.ids.update({m["transactionId"]: m["partitionId"] for m in first})
    story.orders_left = {"p1": [f"o-p1-{i}" for i in range(2, 6)], "p2": [f"o-p2-{i}" for i in range(6)]}

    # Leased: two partitions' leases held across the upgrade (one acked after it, one renewed, then acked).
    ok(admin.configure("leased", leased))
    push(admin, "leased", "a", ["l-a-0", "l-a-1", "l-a-2"])
    push(admin, "leased", "b", ["l-b-0", "l-b-1"])
    for partition, expected in (("a", 3), ("b", 2)):
        messages = pop(admin, "leased", partition, batch=expected)
        assert len(messages) == expected and len({m["leaseId"] for m in messages}) == 1, messages
        story.leases[partition] = (messages[0]["leaseId"], messages)

    # Retried (a failed delivery, redelivered later) and dead-lettered (no retries left).
    ok(admin.configure("retried", dict(leased, retryLimit=3, retryDelay=0)))
    push(admin, "retried", "Default", ["r-0"])
    acked(admin, pop(admin, "retried"), status="failed", error="transient")
    ok(admin.configure("dead", dict(leased, retryLimit=0, deadLetterQueue=True)))
    push(admin, "dead", "Default", ["d-0"])
    acked(admin, pop(admin, "dead"), status="failed", error="poison")
    assert [e["transaction_id"] for e in schema.dlq_entries(story.db, "dead")] == ["d-0"]

    # Consumer groups: g-a consumed 2 of 6, g-b 4 of 6; queue mode none.
    ok(admin.configure("fanout", leased))
    push(admin, "fanout", "Default", [f"f-{i}" for i in range(6)])
    for group, count in (("g-a", 2), ("g-b", 4)):
        messages = pop(admin, "fanout", batch=count, consumer_group=group, subscription_mode="all")
        assert txids(messages) == [f"f-{i}" for i in range(count)]
        acked(admin, messages, consumer_group=group)

    # Encrypted payloads: ciphertext rows, the broker's key decrypts them.
    encrypted = ok(admin.configure("secret", dict(leased, encryptionEnabled=True)))
    assert encrypted["options"]["encryptionEnabled"] is True, encrypted
    push(admin, "secret", "Default", [f"s-{i}" for i in range(3)], payload=lambda t: {"secret": f"plain-{t}"})
    stored = story.db.query("""
        select m.payload::text as payload, m.is_encrypted from queen.messages m
        join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
        where q.name = 'secret' order by m.seq""")
    assert len(stored) == 3 and all(r["is_encrypted"] and "plain-" not in r["payload"] for r in stored), stored

    # Tenants: acme and globex each own a queue named "shared"; the default tenant owns none.
    for client, tenant in ((acme, "acme"), (globex, "globex")):
        ok(client.configure("shared", leased))
        push(client, "shared", "Default", [f"{tenant}-{i}" for i in range(3)])

    # Timers: one plain and one on the encrypted queue, due after the current broker has started.
    story.timer_due = time.time() + TIMER_DELAY_S
    due_ms = int(story.timer_due * 1000)
    push(admin, "timed", "Default", ["t-0"], deliverAt=due_ms)
    push(admin, "secret", "Default", ["t-secret"], payload=lambda t: {"secret": "plain-timer"}, deliverAt=due_ms)
    assert [t["transaction_id"] for t in schema.timers(story.db, "timed")] == ["t-0"]

    # KV: with a TTL, without one, and the same key in a tenant.
    for client, tenant, key, value, ttl in ((admin, "", "config", {"v": 1}, KV_TTL_MS),
                                            (admin, "", "forever", [1, 2, 3], None),
                                            (acme, "acme", "config", {"v": "acme"}, KV_TTL_MS)):
        body = {"value": value} if ttl is None else {"value": value, "ttlMs": ttl}
        ok(client.put(f"/api/v1/kv/{key}", body))
        read = ok(client.get(f"/api/v1/kv/{key}"))
        assert read["value"] == value and (read["expiresAt"] is None) == (ttl is None), read
        story.kv[(tenant, key)] = (value, read["expiresAt"])

    # Traces on a completed message.
    trace = ok(admin.post("/api/v1/traces", {"transactionId": "o-p1-0", "partitionId": story.ids["o-p1-0"],
                                             "traceNames": ["upgrade-trace"], "eventType": "info",
                                             "data": {"step": "before the upgrade"}}), 201)
    assert trace["success"] is True, trace
    for client in (admin, acme, globex):
        client.close()


def rows_kept_by(story, command, *args, filled=("messages", "kv", "message_traces")):
    """Run sqitch (while the brokers run) and return the problems of the row comparison around it; the tables
    `filled` must hold rows before (the comparison proves nothing on empty tables)."""
    before = schema.table_rows(story.db, skip=STATISTICS_TABLES)
    assert all(before[table] for table in filled), {table: len(before[table]) for table in filled}
    story.db.sqitch(command, *args)
    after = schema.table_rows(story.db, skip=STATISTICS_TABLES)
    return compare_rows(before, after, f"sqitch {command}")


def serves_new_traffic(client, queue):
    """Push, pop, renew and ack on a queue of its own, and read what the old state offers to every broker."""
    ok(client.configure(queue, dict(leaseTime=LEASE_S)))
    push(client, queue, "Default", [f"{queue}-0", f"{queue}-1"])
    messages = pop(client, queue, batch=1)
    assert txids(messages) == [f"{queue}-0"]
    extended = ok(client.extend_lease(messages[0]["leaseId"], 120))
    assert extended["success"] is True, extended
    acked(client, messages)
    assert txids(acked_pop(client, queue)) == [f"{queue}-1"]
    assert ok(client.get("/api/v1/kv/config"))["value"] == {"v": 1}
    assert [e["transactionId"] for e in ok(client.dlq(queue="dead"))["messages"]] == ["d-0"]


def acked_pop(client, queue, **kw):
    messages = pop(client, queue, wait=True, timeout_ms=2000, **kw)
    acked(client, messages, consumer_group=kw.get("consumer_group"))
    return messages


def test_rolling_upgrade_schema_first_keeps_every_row_and_the_previous_broker_serving(story):
    prev = story.brokers[0]
    problems, missing = rows_kept_by(story, "deploy", filled=("messages", "kv", "message_traces", "timers", "dlq",
                                                            "consumers", "tenant_usage"))
    assert not problems and not missing, (problems, missing)
    story.db.sqitch("verify")
    story.schema_versions.append(schema_version(story.db))
    assert time.time() < story.timer_due, "the upgrade outlasted TIMER_DELAY_S: raise it"

    # The previous broker, its connections opened against the old schema, serves against the new one; and a
    # broker of the previous release (re)started now passes its boot check against the newer schema.
    with story.client(prev) as admin:
        assert ok(admin.health())["database"] == "connected"
        serves_new_traffic(admin, "after-upgrade")
    restarted = story.broker("previous", "upgrade-prev-restarted")
    with story.client(restarted) as admin:
        serves_new_traffic(admin, "prev-restarted")
    assert restarted.stop() == 0


def test_the_current_broker_serves_what_the_previous_release_stored(story):
    prev = story.brokers[0]
    current = story.broker("current", "upgrade-current")   # boot_check accepts the deployed schema
    # Mid-rollout both releases serve one database: what one stores, the other delivers.
    with story.client(prev) as old, story.client(current) as new:
        for producer, consumer, queue in ((old, new, "mixed-old-to-new"), (new, old, "mixed-new-to-old")):
            push(producer, queue, "Default", [f"{queue}-0"])
            assert txids(acked_pop(consumer, queue)) == [f"{queue}-0"]
    assert prev.stop() == 0
    admin, acme, globex = (story.client(current), story.client(current, "read-write", "acme"),
                           story.client(current, "read-write", "globex"))

    # The leases taken by the previous broker still hold: nothing of theirs is redelivered ...
    assert pop(admin, "leased", "a") == [] and pop(admin, "leased", "b") == []
    # ... an ack with the old lease succeeds, and so does a renewal, then an ack under the renewed lease.
    lease_a, held_a = story.leases["a"]
    acked(admin, held_a)
    lease_b, held_b = story.leases["b"]
    renewed = ok(admin.extend_lease(lease_b, 900))
    assert renewed["success"] is True and renewed["leaseId"] == lease_b, renewed
    acked(admin, held_b)
    assert pop(admin, "leased", "a") == [] and pop(admin, "leased", "b") == []

    # Pending messages, in push order; completed ones are not delivered again.
    for partition, take in (("p1", 4), ("p2", 2)):
        messages = pop(admin, "orders", partition, batch=take)
        expected = story.orders_left[partition][:take]
        assert txids(messages) == expected
        acked(admin, messages)
        story.orders_left[partition] = story.orders_left[partition][take:]

    # The failed delivery comes again, counted; the dead letter is listed with its error.
    retried = pop(admin, "retried")
    assert txids(retried) == ["r-0"] and retried[0]["retryCount"] >= 1, retried
    acked(admin, retried)
    dead = ok(admin.dlq(queue="dead"))["messages"]
    assert [(e["transactionId"], e["errorMessage"]) for e in dead] == [("d-0", "poison")], dead

    # Consumer groups resume at their cursors; queue mode has its own, at the start.
    for group, start in (("g-a", 2), ("g-b", 4)):
        messages = pop(admin, "fanout", consumer_group=group)
        assert txids(messages) == [f"f-{i}" for i in range(start, 6)]
        acked(admin, messages, consumer_group=group)
    groups = {g["name"] for g in ok(admin.get("/api/v1/consumer-groups"))}
    assert {"g-a", "g-b"} <= groups, groups
    assert txids(pop(admin, "fanout")) == [f"f-{i}" for i in range(6)]

    # Encrypted payloads come out in plaintext, in order.
    secrets = pop(admin, "secret")
    assert [(m["transactionId"], m["data"]) for m in secrets] == [(f"s-{i}", {"secret": f"plain-s-{i}"})
                                                                  for i in range(3)]
    acked(admin, secrets)

    # Each tenant sees its own "shared" queue only; the default tenant has none.
    for client, tenant in ((acme, "acme"), (globex, "globex")):
        messages = pop(client, "shared")
        assert txids(messages) == [f"{tenant}-{i}" for i in range(3)]
        acked(client, messages)
    assert pop(admin, "shared") == []

    # KV values with their original expiry.
    for (tenant, key), (value, expires_at) in story.kv.items():
        client = acme if tenant == "acme" else admin
        read = ok(client.get(f"/api/v1/kv/{key}"))
        assert (read["value"], read["expiresAt"]) == (value, expires_at), read

    # Traces, by message and by name.
    traces = ok(admin.get(f"/api/v1/traces/{story.ids['o-p1-0']}/o-p1-0"))["traces"]
    assert [t["data"] for t in traces] == [{"step": "before the upgrade"}], traces
    by_name = ok(admin.get("/api/v1/traces/by-name/upgrade-trace"))
    assert by_name["total"] == 1 and by_name["traces"][0]["transaction_id"] == "o-p1-0", by_name

    # The timers fire once due, through the current broker's sweeper.
    timer_wait = max(0.0, story.timer_due - time.time()) + 20
    fired = poll_until(lambda: pop(admin, "timed", wait=True, timeout_ms=1000), timeout=timer_wait,
                       what="the timer pushed before the upgrade to fire")
    assert txids(fired) == ["t-0"] and time.time() >= story.timer_due - 1, fired
    acked(admin, fired)
    fired = poll_until(lambda: pop(admin, "secret", wait=True, timeout_ms=1000), timeout=timer_wait,
                       what="the encrypted timer to fire")
    assert [(m["transactionId"], m["data"]) for m in fired] == [("t-secret", {"secret": "plain-timer"})]
    acked(admin, fired)
    for client in (admin, acme, globex):
        client.close()


def test_revert_brokers_first_then_schema_keeps_the_release_rows_served(story):
    # Back in the opposite order: the previous release's brokers replace the current ones, then the revert.
    prev = story.broker("previous", "upgrade-prev-back")
    assert story.brokers[1].stop() == 0
    problems, _dropped_with_the_changes_after_the_tag = rows_kept_by(story, "revert", "--to", story.release.target)
    assert not problems, problems
    assert story.db.scalar("""
        select t.change_id = (select change_id from sqitch.changes order by committed_at desc limit 1) as at_tag
        from sqitch.tags t where t.tag = :'tag'""", tag=story.release.target), "the last change deployed is not the tag's"
    assert schema_version(story.db) == story.schema_versions[0], "a reworked change did not revert to its release"

    with story.client(prev) as admin:
        messages = pop(admin, "orders", "p2", batch=2)
        assert txids(messages) == story.orders_left["p2"][:2]
        acked(admin, messages)
        story.orders_left["p2"] = story.orders_left["p2"][2:]
        serves_new_traffic(admin, "after-revert")


def test_deploy_again_keeps_every_row_and_the_current_broker_serves_them(story):
    prev = story.brokers[-1]
    problems, missing = rows_kept_by(story, "deploy")
    assert not problems and not missing, (problems, missing)
    assert schema_version(story.db) == story.schema_versions[1]
    current = story.broker("current", "upgrade-current-again")
    assert prev.stop() == 0
    with story.client(current) as admin:
        messages = pop(admin, "orders", "p2", batch=10)
        assert txids(messages) == story.orders_left["p2"] and messages, messages
        acked(admin, messages)
        assert pop(admin, "orders") == []
        assert ok(admin.get("/api/v1/kv/forever"))["value"] == [1, 2, 3]
        traces = ok(admin.get(f"/api/v1/traces/{story.ids['o-p1-0']}/o-p1-0"))["traces"]
        assert len(traces) == 1, traces
        serves_new_traffic(admin, "after-redeploy")
