"""Listings are bounded in work and bytes (docs/limits.md, "Listings"): issue 20, reproduction 3 and 4 (SQL half).

- One 1 MiB message dead-lettered by 1,000 groups: the DLQ stores its payload once (database growth about
  1 MiB, not 1 GiB), and `GET /api/v1/dlq?limit=1000` answers within QUEEN_LIST_MAX_PAYLOAD_BYTES plus the
  entries' own fields, every entry listed, those past the budget with `"payloadOmitted": true`; three such
  requests at once keep the broker's peak RSS under RSS_BOUND_BYTES.
- `GET /api/v1/messages?queue=big&limit=1000` on a 300,000-message queue answers within LISTING_SECONDS.
"""
import base64
import hashlib
import os
import time

from harness import run_workers, unique_name
from harness.process import measured_bounds_apply, status_bytes

PAYLOAD_BYTES = 1 << 20
DEAD_LETTERS = 1000
BUDGET_BYTES = 4 << 20  # QUEEN_LIST_MAX_PAYLOAD_BYTES default
ENTRY_FIELDS_BYTES = 700  # an entry's fields other than its payload, rendered (ids, names, times), generously
RSS_BOUND_BYTES = 200 << 20
# one 1 MiB copy plus 1,000 narrow rows and their indexes (about 1.5 MiB); a second copy, written by a racing
# dead-letter of the same message, would pass it
DLQ_GROWTH_BOUND_BYTES = 2 << 20
BIG_QUEUE_MESSAGES = 300_000
LISTING_SECONDS = 1.5


def dlq_storage_bytes(db):
    return db.scalar("select pg_total_relation_size('queen.dlq') + pg_total_relation_size('queen.dlq_payloads')")


def test_one_large_dead_message_of_1000_groups_is_stored_once_and_listed_within_the_budget(
        broker_factory, temp_database):
    db = temp_database().target
    broker = broker_factory(pg=db, name="listing-dlq")
    queue = unique_name("dlqbig")
    # incompressible text, so the database sizes measure a real 1 MiB
    blob = base64.b64encode(os.urandom(PAYLOAD_BYTES * 3 // 4)).decode()
    with broker.client() as client:
        pushed = client.push_one(queue, {"blob": blob}, transaction_id="big")
        assert pushed.status == 201, pushed
        partition_id = db.scalar("select m.partition_id from queen.stored_messages m where m.transaction_id = 'big'")
    before = dlq_storage_bytes(db)

    def dead_letter(worker):
        with broker.client() as c:
            for n in range(worker, DEAD_LETTERS, 8):
                r = c.post(f"/api/v1/messages/{partition_id}/big/dlq",
                           json={"consumerGroup": f"g{n}", "errorMessage": "operator"})
                assert r.status == 200, r
    run_workers(8, dead_letter, timeout=120)

    assert db.scalar("select count(*) from queen.dlq") == DEAD_LETTERS
    assert db.scalar("select count(*) from queen.dlq_payloads") == 1
    growth = dlq_storage_bytes(db) - before
    assert growth < DLQ_GROWTH_BOUND_BYTES, f"the DLQ grew by {growth} bytes for one 1 MiB payload"

    bodies = []

    def list_dlq(_):
        with broker.client(timeout=60) as c:
            r = c.get("/api/v1/dlq", params={"queue": queue, "limit": DEAD_LETTERS})
            assert r.status == 200, r
            return r
    answers = run_workers(3, list_dlq, timeout=120)
    for r in answers:
        assert len(r.raw) < BUDGET_BYTES + DEAD_LETTERS * ENTRY_FIELDS_BYTES, len(r.raw)
        body = r.body
        assert body["total"] == DEAD_LETTERS and len(body["messages"]) == DEAD_LETTERS
        with_payload = [e for e in body["messages"] if not e.get("payloadOmitted")]
        omitted = [e for e in body["messages"] if e.get("payloadOmitted")]
        assert 1 <= len(with_payload) <= BUDGET_BYTES // PAYLOAD_BYTES, len(with_payload)
        assert all(e["data"] == {"blob": blob} for e in with_payload)
        assert all(e["data"] is None and e["payloadOmitted"] is True for e in omitted)
        # the kept payloads come first, in page order
        assert body["messages"][:len(with_payload)] == with_payload
        bodies.append(body)
    peak = status_bytes(broker.pid, "VmHWM")
    assert peak < RSS_BOUND_BYTES or not measured_bounds_apply(), f"broker peak RSS {peak >> 20} MiB"

    # a requeue takes the one payload copy along; the payload row goes with the last entry
    with broker.client() as client:
        r = client.post("/api/v1/dlq/requeue", json={"queue": queue})
        assert r.status == 200 and r.body["requeued"] == DEAD_LETTERS, r
    assert db.scalar("select count(*) from queen.dlq_payloads") == 0
    copy_md5 = db.scalar("select md5(m.payload ->> 'blob') from queen.stored_messages m where m.transaction_id <> 'big'")
    assert copy_md5 == hashlib.md5(blob.encode()).hexdigest()


def test_listing_1000_messages_of_a_300k_queue_answers_within_the_bound(broker_factory, temp_database):
    db = temp_database().target
    broker = broker_factory(pg=db, name="listing-big")
    with broker.client() as client:
        assert client.push_one("big", {"n": 0}, transaction_id="first").status == 201
        # The fill goes straight into the log (the store procedure would take minutes here), as pushes of
        # 100: seq and created_at ascend together per partition, as the store writes them.
        db.execute("""
            with p as (select p.id from queen.partitions p join queen.queues q on q.id = p.queue_id
                        where q.name = 'big')
            insert into queen.segments (partition_id, base_seq, end_seq, created_at, message_ids, transaction_ids, payloads)
            select p.id, 2 + 100 * k, 101 + 100 * k, now() - interval '20 minutes' + k * interval '1 millisecond',
                   array(select queen_internal.uuid_v7_ordinal(now(), 100 * k + i) from generate_series(1, 100) i),
                   array(select 'fill-' || (100 * k + i) from generate_series(1, 100) i),
                   array(select jsonb_build_object('i', 100 * k + i)::text from generate_series(1, 100) i)
              from p, generate_series(0, :'n'::int / 100 - 1) k;
            update queen.segments set created_at = now() - interval '30 minutes' where 'first' = any (transaction_ids);
            update queen.partitions p
               set last_seq = 1 + :'n'::int, last_message_at = now() - interval '20 minutes' + :'n'::int * interval '1 millisecond'
             where p.queue_id = (select id from queen.queues where name = 'big');
            analyze queen.segments;
            """, n=BIG_QUEUE_MESSAGES)
        assert db.scalar("select count(*) from queen.stored_messages") == BIG_QUEUE_MESSAGES + 1
        client.get("/api/v1/messages", params={"queue": "big", "limit": 1})  # a warm connection
        started = time.monotonic()
        r = client.get("/api/v1/messages", params={"queue": "big", "limit": 1000}, timeout=60)
        elapsed = time.monotonic() - started
        assert r.status == 200, r
        ids = [m["transactionId"] for m in r.body["messages"]]
        assert ids == [f"fill-{i}" for i in range(BIG_QUEUE_MESSAGES, BIG_QUEUE_MESSAGES - 1000, -1)]
        assert elapsed < LISTING_SECONDS, f"GET /api/v1/messages?limit=1000 took {elapsed:.2f} s"
        deep = client.get("/api/v1/messages", params={"queue": "big", "limit": 10, "offset": 10001})
        assert deep.status == 400 and "QUEEN_LIST_MAX_OFFSET" in deep.body["error"], deep
