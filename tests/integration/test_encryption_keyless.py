"""A broker without QUEEN_ENCRYPTION_KEY and a queue configured encryptionEnabled (docs/encryption.md, "A broker
without a key"): every path refuses the payload instead of storing it in plaintext. A push is refused item by
item (by the broker when its list of encrypted queues names the queue, by the database when the list is
stale), a transaction fails whole, and a push spooled while the list was stale is quarantined by the drain,
never stored. No row of such a queue ever has is_encrypted = false.

The brokers of this module run on a database of their own: push maintenance is a cluster-wide flag.
"""
import os

import pytest

from harness import Broker, TempDatabase, poll_until, unique_name

TX = "/api/v1/transaction"
# No periodic re-read: what a broker knows comes from configure or from the database's refusal.
NO_REFRESH_MS = "3600000"
FAR_FUTURE_MS = 32503680000000  # year 3000


def refusal(queue):
    return f"queue '{queue}' requires encryption and this broker has no QUEEN_ENCRYPTION_KEY"


@pytest.fixture(scope="module")
def own_db(pg):
    with TempDatabase(pg) as database:
        yield database.target


@pytest.fixture(scope="module")
def keyless(own_db):
    instance = Broker(pg=own_db, name="it-keyless", env={
        "QUEEN_ENCRYPTION_KEY": None, "QUEEN_ENCRYPTION_KEY_PREVIOUS": None,
        "QUEEN_ENCRYPTION_REFRESH_MS": NO_REFRESH_MS, "FILE_BUFFER_FLUSH_MS": "50"}).start()
    yield instance
    instance.stop()


@pytest.fixture
def client(keyless):
    with keyless.client() as c:
        yield c
        c.set_maintenance(False)


def configure_in_the_database(db, queue):
    """Configured elsewhere (another broker, psql): this broker's list does not name the queue."""
    db.execute("""select queen.configure_queue(:'queue', '', '', '{"encryptionEnabled": true}'::jsonb, '')""",
               queue=queue)


def stored(db, queue):
    return db.query("""
        select m.transaction_id, m.is_encrypted from queen.stored_messages m
          join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
         where q.name = :'queue' and q.tenant = '' order by m.seq""", queue=queue)


def timers(db, queue):
    return int(db.scalar("select count(*) from queen.timers where queue_name = :'queue'", queue=queue))


def assert_refused(item, queue):
    assert item["status"] == "failed" and item["error"] == refusal(queue), item
    assert item.get("messageId") is None, item


def test_configure_warns_and_pushes_are_refused_item_by_item(client, own_db):
    queue, plain = unique_name("kl-enc"), unique_name("kl-plain")
    resp = client.configure(queue, {"encryptionEnabled": True})
    assert resp.status == 200 and resp.body["options"]["encryptionEnabled"] is True, resp
    assert "refused by brokers without a key" in resp.body["warning"], resp.body
    pushed = client.push([{"queue": queue, "payload": {"secret": "s-1"}, "transactionId": "kl-1"},
                          {"queue": plain, "payload": {"open": 1}},
                          {"queue": queue, "payload": {"secret": "s-2"}, "deliverAt": FAR_FUTURE_MS}])
    assert pushed.status == 201, pushed
    first, second, timer = pushed.body
    assert_refused(first, queue)
    assert first["transactionId"] == "kl-1" and first["index"] == 0
    assert second["status"] == "queued" and second["index"] == 1, second
    assert_refused(timer, queue)
    assert timer["index"] == 2
    assert stored(own_db, queue) == [] and timers(own_db, queue) == 0
    assert [r["is_encrypted"] for r in stored(own_db, plain)] == [False]

    resp = client.post(TX, {"operations": [{"type": "push", "items": [{"queue": plain, "payload": {"n": 2}},
                                                                      {"queue": queue, "payload": {"n": 3}}]}]})
    assert resp.status == 200 and resp.body["success"] is False, resp
    assert f"queue {queue} has encryptionEnabled: plaintext refused" in resp.body["error"], resp.body
    assert len(stored(own_db, plain)) == 1 and stored(own_db, queue) == []


def test_a_stale_list_is_caught_by_the_database(client, keyless, own_db):
    queue = unique_name("kl-stale")
    configure_in_the_database(own_db, queue)
    offset = keyless.log_size()
    pushed = client.push([{"queue": queue, "payload": {"secret": "stale-1"}},
                          {"queue": queue, "partition": "p2", "payload": {"secret": "stale-2"}}])
    assert pushed.status == 201, pushed
    for item in pushed.body:
        assert_refused(item, queue)
    assert stored(own_db, queue) == []
    assert "learned from the database" in keyless.log_text(since=offset)
    # Learned: the next push is refused before the database, also while it would be spooled.
    assert client.set_maintenance(True).status == 200
    again = client.push([{"queue": queue, "payload": {"secret": "stale-3"}}])
    assert again.status == 201, again
    assert_refused(again.body[0], queue)
    assert client.set_maintenance(False).status == 200
    assert stored(own_db, queue) == []

    tx_queue = unique_name("kl-stale-tx")
    configure_in_the_database(own_db, tx_queue)
    resp = client.post(TX, {"operations": [{"type": "push", "items": [{"queue": tx_queue, "payload": {"n": 1}}]}]})
    assert resp.status == 200 and resp.body["success"] is False, resp
    assert f"queue {tx_queue} has encryptionEnabled: plaintext refused" in resp.body["error"], resp.body
    assert stored(own_db, tx_queue) == []


def test_a_push_spooled_before_the_queue_wanted_encryption_is_quarantined_not_stored(client, keyless, own_db):
    queue = unique_name("kl-spool")
    assert client.set_maintenance(True).status == 200
    try:
        pushed = client.push([{"queue": queue, "payload": {"secret": "spooled-secret"}}])
        assert pushed.status == 201 and pushed.body[0]["status"] == "buffered", pushed
        configure_in_the_database(own_db, queue)
    finally:
        assert client.set_maintenance(False).status == 200
    failed_dir = os.path.join(keyless.spool_dir, "failed")
    poll_until(lambda: client.gauges()["queen_file_buffer_failed"] >= 1 and
               client.gauges()["queen_file_buffer_pending"] == 0,
               timeout=30, what="the refused spool record to be quarantined")
    assert stored(own_db, queue) == [], "a refused record is never stored in plaintext"
    assert os.listdir(failed_dir), "the record is kept in failed/ for the operator"
    log = keyless.log_text()
    assert refusal(queue) in log, log[-3000:]
    # Pushes go to the database again: the drain is not stuck on the refused record.
    plain = unique_name("kl-after")
    assert client.push([{"queue": plain, "payload": 1}]).body[0]["status"] == "queued"
