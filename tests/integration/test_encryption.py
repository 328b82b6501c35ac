"""Payload encryption at rest (docs/encryption.md): AES-256-GCM envelopes in queen.stored_messages, the spool
and the timers; plaintext on pop and in the DLQ listing; tamper detection; key rotation; a malformed key;
the database refusing plaintext from a broker whose list of encrypted queues is stale (live pushes and
spool replay); and two tenants' queues of the same name with their own encryptionEnabled.

The brokers of this module run on a database of their own: push maintenance (the spool test) is a
cluster-wide flag.
"""
import json
import os
import time

import jwt
import pytest

from harness import Broker, TempDatabase, poll_until, unique_name
from harness.api import ack_item

KEY_A = "3c" * 16 + "a1b2c3d4" * 4   # 64 hex characters
KEY_B = "7e" * 16 + "0f1e2d3c" * 4
TX = "/api/v1/transaction"
ENVELOPE_FIELDS = {"v", "kid", "iv", "ct", "tag"}
# No periodic re-read during a test: what a broker knows comes from configure or the database.
NO_REFRESH_MS = "3600000"
JWT_SECRET = "encryption-test-jwt-secret-0123456789"


@pytest.fixture(scope="module")
def own_db(pg):
    with TempDatabase(pg) as database:
        yield database.target


def keyed_env(key=KEY_A, previous=None, **extra):
    env = {"QUEEN_ENCRYPTION_KEY": key, "QUEEN_ENCRYPTION_REFRESH_MS": NO_REFRESH_MS, "FILE_BUFFER_FLUSH_MS": "50"}
    if previous is not None:
        env["QUEEN_ENCRYPTION_KEY_PREVIOUS"] = previous
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def broker(own_db):
    instance = Broker(pg=own_db, name="it-encryption", env=keyed_env()).start()
    yield instance
    instance.stop()


@pytest.fixture
def client(broker):
    with broker.client() as c:
        yield c
        c.set_maintenance(False)


@pytest.fixture
def make_broker(own_db):
    started = []

    def make(name, env):
        b = Broker(pg=own_db, name=name, env=env).start()
        started.append(b)
        return b

    yield make
    for b in started:
        b.stop()


def encrypted_queue(client, prefix):
    queue = unique_name(prefix)
    resp = client.configure(queue, {"encryptionEnabled": True})
    assert resp.status == 200, resp
    assert resp.body["options"]["encryptionEnabled"] is True
    return queue


def stored_rows(db, queue, tenant=""):
    return db.query("""
        select m.transaction_id, m.payload::text as payload, m.is_encrypted
          from queen.stored_messages m
          join queen.partitions p on p.id = m.partition_id
          join queen.queues q on q.id = p.queue_id
         where q.name = :'queue' and q.tenant = :'tenant'
         order by m.seq""", queue=queue, tenant=tenant)


def assert_ciphertext(row, *plaintexts):
    assert row["is_encrypted"] is True, row
    envelope = json.loads(row["payload"])
    assert set(envelope) == ENVELOPE_FIELDS, envelope
    for text in plaintexts:
        assert text not in row["payload"], row


def pop_all(client, queue, expected, **kw):
    return client.drain(queue, expected, timeout=15, **kw)


def test_row_is_ciphertext_and_pop_is_plaintext(client, own_db):
    queue = encrypted_queue(client, "enc")
    payload = {"secret": "swordfish-7731", "text": "héllo wörld ✓ 日本", "n": [1, 2.5, None, True]}
    pushed = client.push([{"queue": queue, "payload": payload, "transactionId": "enc-1"}])
    assert pushed.status == 201, pushed
    assert pushed.body[0]["status"] == "queued", pushed.body

    [row] = stored_rows(own_db, queue)
    assert_ciphertext(row, "swordfish-7731", "wörld")
    assert row["transaction_id"] == "enc-1"  # identifiers stay plaintext
    [message] = pop_all(client, queue, 1)
    assert message["data"] == payload
    assert message["transactionId"] == "enc-1"


def test_dlq_listing_shows_the_decrypted_payload(client, own_db):
    queue = encrypted_queue(client, "enc-dlq")
    assert client.push([{"queue": queue, "payload": {"dead": "dlq-secret"}, "transactionId": "dl-1"}]).status == 201
    [message] = client.pop_messages(queue, batch=1)
    acked = client.ack_batch([ack_item(message, status="dlq", error="handler gave up")])
    assert acked.status == 200 and acked.body[0]["success"] is True, acked
    stored = own_db.query("select p.payload::text as payload, d.is_encrypted from queen.dlq d "
                          "join queen.dlq_payloads p on p.message_id = d.message_id where d.transaction_id = 'dl-1'")
    assert_ciphertext(stored[0], "dlq-secret")  # the dead letter keeps the envelope
    [entry] = client.dlq(queue=queue).body["messages"]
    assert entry["data"] == {"dead": "dlq-secret"}
    assert entry["isEncrypted"] is True
    assert entry["errorMessage"] == "handler gave up"


def test_queue_without_encryption_stays_plaintext(client, own_db):
    queue = unique_name("plain")
    assert client.push([{"queue": queue, "payload": {"visible": "yes-plain"}}]).status == 201
    [row] = stored_rows(own_db, queue)
    assert row["is_encrypted"] is False
    assert json.loads(row["payload"]) == {"visible": "yes-plain"}
    assert pop_all(client, queue, 1)[0]["data"] == {"visible": "yes-plain"}


def test_timer_is_stored_encrypted_and_fires_as_ciphertext(client, own_db):
    queue = encrypted_queue(client, "enc-timer")
    deliver_at_ms = int(time.time() * 1000) + 1500
    pushed = client.push([{"queue": queue, "payload": {"later": "timer-secret"}, "deliverAt": deliver_at_ms}])
    assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
    timer = own_db.query("select payload::text as payload, is_encrypted from queen.timers where queue_name = :'q'",
                         q=queue)
    assert len(timer) == 1
    assert_ciphertext(timer[0], "timer-secret")
    [message] = pop_all(client, queue, 1)
    assert message["data"] == {"later": "timer-secret"}
    assert_ciphertext(stored_rows(own_db, queue)[0], "timer-secret")


def test_transaction_push_is_encrypted(client, own_db):
    queue = encrypted_queue(client, "enc-tx")
    resp = client.post(TX, {"operations": [{"type": "push", "items": [
        {"queue": queue, "payload": {"tx": "tx-secret-1"}}, {"queue": queue, "payload": {"tx": "tx-secret-2"}}]}]})
    assert resp.status == 200 and resp.body["success"] is True, resp
    rows = stored_rows(own_db, queue)
    assert len(rows) == 2
    for row in rows:
        assert_ciphertext(row, "tx-secret")
    assert [m["data"] for m in pop_all(client, queue, 2)] == [{"tx": "tx-secret-1"}, {"tx": "tx-secret-2"}]


def spool_text(broker):
    texts = []
    for root, _, files in os.walk(broker.spool_dir):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                texts.append(f.read().decode("utf-8", "replace"))
    return "\n".join(texts)


def test_spooled_payload_is_sealed_on_disk_and_replayed_as_it_is(client, broker, own_db):
    queue = encrypted_queue(client, "enc-spool")
    assert client.set_maintenance(True).status == 200
    pushed = client.push([{"queue": queue, "payload": {"spooled": "spool-secret-42"}, "transactionId": "sp-1"}])
    assert pushed.status == 201 and pushed.body[0]["status"] == "buffered", pushed

    on_disk = poll_until(lambda: (lambda t: t if "sp-1" in t else None)(spool_text(broker)), timeout=10,
                         what="the spooled record on disk")
    assert "spool-secret-42" not in on_disk
    # Records are framed (length, JSON, checksum): decode the JSON object that names the item.
    start = on_disk.rindex('{"', 0, on_disk.index('"sp-1"'))
    record, _ = json.JSONDecoder().raw_decode(on_disk, start)
    assert record["encrypted"] is True
    assert set(record["payload"]) == ENVELOPE_FIELDS

    assert client.set_maintenance(False).status == 200
    rows = poll_until(lambda: stored_rows(own_db, queue), timeout=20, what="the spool drain")
    assert_ciphertext(rows[0], "spool-secret-42")
    assert pop_all(client, queue, 1)[0]["data"] == {"spooled": "spool-secret-42"}


def tamper(db, transaction_id):
    """Change the first character of the stored ciphertext (still valid base64 of the same length)."""
    db.execute("""
        update queen.segments s
           set payloads[k.i] = jsonb_set(s.payloads[k.i]::jsonb, '{ct}',
                 to_jsonb(CASE WHEN left(s.payloads[k.i]::jsonb ->> 'ct', 1) = 'A' THEN 'B' ELSE 'A' END
                          || substr(s.payloads[k.i]::jsonb ->> 'ct', 2)))::text
          from (select x.partition_id, x.base_seq, array_position(x.transaction_ids, :'t') as i
                  from queen.segments x where :'t' = any (x.transaction_ids)) k
         where s.partition_id = k.partition_id and s.base_seq = k.base_seq""", t=transaction_id)
    assert db.scalar("select count(*) from queen.stored_messages where transaction_id = :'t'", t=transaction_id) == 1


def prometheus_counter(client, name):
    for line in client.prometheus().body.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not exported")


def test_tampered_message_is_not_delivered_and_goes_to_the_dlq(client, broker, own_db):
    queue = encrypted_queue(client, "enc-tamper")
    ids = [unique_name("tm") for _ in range(3)]
    assert client.push([{"queue": queue, "payload": {"i": i}, "transactionId": t}
                        for i, t in enumerate(ids)]).status == 201
    tamper(own_db, ids[1])
    before = prometheus_counter(client, "queen_undecryptable_messages_total")
    offset = broker.log_size()

    messages = client.pop_messages(queue, batch=10)
    assert [m["transactionId"] for m in messages] == [ids[0], ids[2]]
    assert [m["data"] for m in messages] == [{"i": 0}, {"i": 2}]
    acked = client.ack_batch([ack_item(m) for m in messages])
    assert acked.status == 200 and all(r["success"] for r in acked.body), acked
    assert client.pop_messages(queue, batch=10) == []  # nothing left behind, nothing stuck

    dlq = client.dlq(queue=queue)
    assert dlq.status == 200, dlq
    [entry] = dlq.body["messages"]
    assert entry["transactionId"] == ids[1]
    assert "undecryptable" in entry["errorMessage"] and "authentication failed" in entry["errorMessage"], entry
    assert entry["isEncrypted"] is True
    assert "cannot be decrypted: authentication failed" in broker.log_text(since=offset)
    assert ids[1] in broker.log_text(since=offset)
    assert prometheus_counter(client, "queen_undecryptable_messages_total") == before + 1
    assert client.health().status == 200


def test_tampered_last_message_of_a_batch_does_not_stall_its_partition(client, own_db):
    queue = encrypted_queue(client, "enc-tail")
    ids = [unique_name("tl") for _ in range(2)]
    assert client.push([{"queue": queue, "payload": {"i": i}, "transactionId": t}
                        for i, t in enumerate(ids)]).status == 201
    tamper(own_db, ids[1])
    messages = client.pop_messages(queue, batch=10)
    assert [m["transactionId"] for m in messages] == [ids[0]]
    assert client.ack_batch([ack_item(m) for m in messages]).status == 200
    client.push([{"queue": queue, "payload": {"i": 2}, "transactionId": "after-tail"}])
    assert [m["transactionId"] for m in pop_all(client, queue, 1)] == ["after-tail"]
    assert [e["transactionId"] for e in client.dlq(queue=queue).body["messages"]] == [ids[1]]


def test_a_batch_with_only_tampered_messages_answers_empty_and_moves_on(client, own_db):
    queue = encrypted_queue(client, "enc-allbad")
    assert client.push([{"queue": queue, "payload": {"i": 0}, "transactionId": "bad-only"}]).status == 201
    tamper(own_db, "bad-only")
    assert client.pop_messages(queue, batch=5) == []
    client.push([{"queue": queue, "payload": {"i": 1}, "transactionId": "good-after"}])
    assert [m["transactionId"] for m in pop_all(client, queue, 1)] == ["good-after"]


def test_key_rotation_previous_key_decrypts_old_messages(make_broker, own_db):
    old = make_broker("it-enc-old", keyed_env(KEY_A))
    with old.client() as c:
        queue = encrypted_queue(c, "enc-rot")
        lost = encrypted_queue(c, "enc-rot-lost")
        assert c.push([{"queue": queue, "payload": {"era": "old"}, "transactionId": "r-old"}]).status == 201
        assert c.push([{"queue": lost, "payload": {"era": "old"}, "transactionId": "r-lost"}]).status == 201
    old.stop()
    old_kid = json.loads(stored_rows(own_db, queue)[0]["payload"])["kid"]

    rotated = make_broker("it-enc-rotated", keyed_env(KEY_B, previous=KEY_A))
    with rotated.client() as c:
        assert c.push([{"queue": queue, "payload": {"era": "new"}, "transactionId": "r-new"}]).status == 201
        assert [m["data"] for m in pop_all(c, queue, 2)] == [{"era": "old"}, {"era": "new"}]
    rows = stored_rows(own_db, queue)
    assert json.loads(rows[1]["payload"])["kid"] != old_kid  # new messages use the new key
    rotated.stop()

    without_previous = make_broker("it-enc-noprev", keyed_env(KEY_B))
    with without_previous.client() as c:
        assert c.pop_messages(lost, batch=5) == []
        [entry] = c.dlq(queue=lost).body["messages"]
        assert entry["transactionId"] == "r-lost"
        assert "unknown key id" in entry["errorMessage"], entry


def test_a_malformed_key_stops_the_boot_without_quoting_it(own_db):
    # Refused by the configuration check (docs/configuration.md, Reading rules): a broker never runs with
    # encryption silently off. tests/integration/test_config_fail_closed.py covers --check-config.
    bad_key = "zz" + KEY_A[2:]
    broker = Broker(pg=own_db, name="it-enc-badkey", env={"QUEEN_ENCRYPTION_KEY": bad_key})
    broker.start(wait=False)
    try:
        poll_until(lambda: not broker.alive, timeout=30, what="the broker to exit")
        log = broker.log_text()
        assert broker.returncode == 2, log[-2000:]
        assert "QUEEN_ENCRYPTION_KEY=*** must contain hexadecimal characters only" in log, log[-2000:]
        assert bad_key[:12] not in log and "listening on" not in log
    finally:
        broker.stop()


def test_configure_on_a_keyed_broker_has_no_warning(client):
    resp = client.configure(unique_name("enc-nowarn"), {"encryptionEnabled": True})
    assert resp.status == 200 and "warning" not in resp.body, resp


def test_stale_broker_still_stores_ciphertext_thanks_to_the_database(make_broker, own_db):
    first = make_broker("it-enc-first", keyed_env(KEY_A))
    stale = make_broker("it-enc-stale", keyed_env(KEY_A))
    queue = unique_name("enc-stale")
    tx_queue = unique_name("enc-stale-tx")
    with stale.client() as s, first.client() as f:
        # The stale broker pushes while the queues do not want encryption yet.
        assert s.push([{"queue": queue, "payload": {"n": "before-1"}}]).status == 201
        assert s.push([{"queue": tx_queue, "payload": {"n": "before-tx"}}]).status == 201
        assert stored_rows(own_db, queue)[0]["is_encrypted"] is False
        encrypted_queue_named(f, queue)
        encrypted_queue_named(f, tx_queue)

        offset = stale.log_size()
        pushed = s.push([{"queue": queue, "payload": {"n": f"after-{i}"}} for i in range(3)])
        assert pushed.status == 201 and [r["status"] for r in pushed.body] == ["queued"] * 3, pushed
        rows = stored_rows(own_db, queue)
        assert len(rows) == 4
        for row in rows[1:]:
            assert_ciphertext(row, "after-")
        assert "learned from the database" in stale.log_text(since=offset)

        resp = s.post(TX, {"operations": [{"type": "push", "items": [{"queue": tx_queue,
                                                                       "payload": {"n": "after-tx"}}]}]})
        assert resp.status == 200 and resp.body["success"] is True, resp
        assert_ciphertext(stored_rows(own_db, tx_queue)[1], "after-tx")

        assert [m["data"]["n"] for m in pop_all(s, queue, 4)] == ["before-1", "after-0", "after-1", "after-2"]
        assert [m["data"]["n"] for m in pop_all(f, tx_queue, 2)] == ["before-tx", "after-tx"]


def encrypted_queue_named(client, queue):
    resp = client.configure(queue, {"encryptionEnabled": True})
    assert resp.status == 200 and resp.body["options"]["encryptionEnabled"] is True, resp


def test_plaintext_spooled_by_a_stale_broker_is_sealed_before_the_database(make_broker, own_db):
    first = make_broker("it-enc-spool-first", keyed_env())
    stale = make_broker("it-enc-spool-stale", keyed_env())
    told_by_database = unique_name("enc-gap-db")  # configured elsewhere: the replay learns it from the refusal
    told_by_configure = unique_name("enc-gap-cfg")  # configured on the stale broker between spooling and replay
    with stale.client() as s, first.client() as f:
        assert s.set_maintenance(True).status == 200
        try:
            pushed = s.push([{"queue": told_by_database, "payload": {"gap": "gap-secret-db"}},
                             {"queue": told_by_configure, "payload": {"gap": "gap-secret-cfg"}}])
            assert pushed.status == 201 and [r["status"] for r in pushed.body] == ["buffered"] * 2, pushed
            encrypted_queue_named(f, told_by_database)
            encrypted_queue_named(s, told_by_configure)
        finally:
            assert s.set_maintenance(False).status == 200
        for queue, secret in ((told_by_database, "gap-secret-db"), (told_by_configure, "gap-secret-cfg")):
            [row] = poll_until(lambda q=queue: stored_rows(own_db, q), timeout=20, what=f"the replay into {queue}")
            assert_ciphertext(row, secret)
            assert pop_all(s, queue, 1)[0]["data"] == {"gap": secret}


def with_token(client, tenant=None):
    claims = {"sub": "enc-tester", "role": "admin", "exp": int(time.time()) + 3600}
    if tenant is not None:
        claims["tenant"] = tenant
    client.default_headers["Authorization"] = "Bearer " + jwt.encode(claims, JWT_SECRET, algorithm="HS256")
    return client


def test_two_tenants_queues_of_one_name_have_their_own_encryption(make_broker, own_db):
    env = keyed_env(JWT_ENABLED="true", JWT_SECRET=JWT_SECRET, JWT_ALGORITHM="HS256")
    first = make_broker("it-enc-tenants", env)
    stale = make_broker("it-enc-tenants-stale", env)  # its list never hears of the configure below
    queue = unique_name("orders")
    with first.client() as acme, first.client() as default:
        with_token(acme, "acme")
        with_token(default)
        assert acme.configure(queue, {"encryptionEnabled": True}).body["options"]["encryptionEnabled"] is True
        # The default tenant's queue of the same name says no: acme's stays encrypted.
        assert default.configure(queue, {"encryptionEnabled": False}).body["options"]["encryptionEnabled"] is False
        offset = first.log_size()
        assert acme.push([{"queue": queue, "payload": {"who": "acme-secret-1"}}]).status == 201
        assert default.push([{"queue": queue, "payload": {"who": "default-open-1"}}]).status == 201
        assert "learned from the database" not in first.log_text(since=offset)  # sealed by the broker's own set
    with stale.client() as acme_stale, stale.client() as default_stale:
        with_token(acme_stale, "acme")
        with_token(default_stale)
        assert acme_stale.push([{"queue": queue, "payload": {"who": "acme-secret-2"}}]).body[0]["status"] == "queued"
        assert default_stale.push([{"queue": queue, "payload": {"who": "default-open-2"}}]).body[0]["status"] == \
            "queued"

        acme_rows = stored_rows(own_db, queue, tenant="acme")
        default_rows = stored_rows(own_db, queue)
        assert len(acme_rows) == 2 and len(default_rows) == 2
        for row in acme_rows:
            assert_ciphertext(row, "acme-secret")
        assert [(r["is_encrypted"], json.loads(r["payload"])) for r in default_rows] == [
            (False, {"who": "default-open-1"}), (False, {"who": "default-open-2"})]
        assert own_db.query("select tenant, queue_name from queen.encrypted_queue_names() where queue_name = :'q'",
                            q=queue) == [{"tenant": "acme", "queue_name": queue}]
        assert [m["data"]["who"] for m in pop_all(acme_stale, queue, 2)] == ["acme-secret-1", "acme-secret-2"]
        assert [m["data"]["who"] for m in pop_all(default_stale, queue, 2)] == ["default-open-1", "default-open-2"]
