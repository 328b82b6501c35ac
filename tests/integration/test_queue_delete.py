"""DELETE /api/v1/resources/queues/:queue (docs/api-extensions.md, docs/procedures.md delete_queue)."""
from harness import poll_until, schema, unique_name
from harness.api import quote
from harness.assertions import assert_no_cors, assert_no_content

FAR_FUTURE = "2999-01-01T00:00:00.000Z"


def delete_queue(client, queue):
    return client.delete(f"/api/v1/resources/queues/{quote(queue)}")


def partition_ids(pg, queue):
    rows = pg.query("""select p.id::text as id from queen.partitions p join queen.queues q on q.id = p.queue_id
                       where q.name = :'queue'""", queue=queue)
    return "{" + ",".join(r["id"] for r in rows) + "}"


def test_deleting_a_queue_removes_everything_it_held(client, pg):
    queue = unique_name("del")
    assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
    for n, partition in ((1, "p1"), (2, "p2"), (3, "p2")):
        assert client.push_one(queue, {"n": n}, partition=partition, transaction_id=f"m{n}").status == 201
    # A dead letter, a held lease and a consumer-group cursor: all of it must go.
    dead = client.pop_messages(queue, partition="p1")
    assert client.ack("m1", dead[0]["partitionId"], lease_id=dead[0]["leaseId"], status="failed").body[0]["dlq"]
    assert client.pop_messages(queue, partition="p2")
    assert client.pop_messages(queue, consumer_group="g1", batch=10)
    ids = partition_ids(pg, queue)
    # A dedup tombstone, as retention leaves behind for a deleted message.
    pg.execute("""insert into queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
                  select p.id, 'retired-1', gen_random_uuid(), now() + interval '1 day'
                  from queen.partitions p join queen.queues q on q.id = p.queue_id
                  where q.name = :'queue' and p.name = 'p2'""", queue=queue)

    resp = delete_queue(client, queue)
    assert resp.status == 200, resp
    assert resp.body == {"deleted": True, "queue": queue, "existed": True}
    assert_no_cors(resp)

    assert not schema.queue_exists(pg, queue)
    assert schema.message_count(pg, queue) == 0
    assert schema.dlq_entries(pg, queue) == []
    leftovers = pg.query("""
        select (select count(*) from queen.stored_messages where partition_id = any(:'ids'::uuid[])) as messages,
               (select count(*) from queen.consumers where partition_id = any(:'ids'::uuid[])) as consumers,
               (select count(*) from queen.dlq where partition_id = any(:'ids'::uuid[])) as dlq,
               (select count(*) from queen.dedup_tombstones where partition_id = any(:'ids'::uuid[])) as tombstones,
               (select count(*) from queen.partitions where id = any(:'ids'::uuid[])) as partitions""", ids=ids)
    assert leftovers == [{"messages": 0, "consumers": 0, "dlq": 0, "tombstones": 0, "partitions": 0}]
    assert client.get("/api/v1/dlq", params={"queue": queue}).body["total"] == 0
    assert_no_content(client.pop(queue))


def test_deleting_an_unknown_queue_is_still_deleted_true(client):
    queue = unique_name("del-ghost")
    resp = delete_queue(client, queue)
    assert resp.status == 200, resp
    assert resp.body == {"deleted": True, "queue": queue, "existed": False}


def test_deleting_twice_reports_existed_only_once(client):
    queue = unique_name("del-twice")
    client.push_one(queue, {"n": 1})
    assert delete_queue(client, queue).body["existed"] is True
    assert delete_queue(client, queue).body["existed"] is False


def test_the_dedup_window_ends_with_the_queue(client, pg):
    # Dedup keys live with the queue's partitions (rows and tombstones), which the
    # delete removes: the same transactionId is a new message in a re-created queue.
    queue = unique_name("del-dedup")
    assert client.push_one(queue, {"v": 1}, transaction_id="same-id").body[0]["status"] == "queued"
    assert client.push_one(queue, {"v": 2}, transaction_id="same-id").body[0]["status"] == "duplicate"
    assert delete_queue(client, queue).body["existed"] is True

    again = client.push_one(queue, {"v": 3}, transaction_id="same-id")
    assert again.status == 201 and again.body[0]["status"] == "queued", again.body
    msgs = poll_until(lambda: client.pop_messages(queue), timeout=10, interval=0.05, what="the re-pushed message")
    assert [(m["transactionId"], m["data"]) for m in msgs] == [("same-id", {"v": 3})]


def test_consumer_group_subscription_records_are_removed(client, pg):
    # The reference server keeps them (a re-created queue inherits old start points); we remove them
    # (docs/api-extensions.md).
    queue = unique_name("del-sub")
    client.push_one(queue, {"old": True})
    assert_no_content(client.pop(queue, consumer_group="late", subscription_mode="timestamp",
                                 subscription_from=FAR_FUTURE))
    queue_id = pg.scalar("select id::text as id from queen.queues where name = :'queue'", queue=queue)
    count = "select count(*) as n from queen.subscriptions where queue_id = :'id'::uuid"
    assert pg.scalar(count, id=queue_id) == 1, "the group's start point was not recorded"
    assert delete_queue(client, queue).body["existed"] is True
    assert pg.scalar(count, id=queue_id) == 0
    # The re-created queue is new to the group: it starts from the beginning (the default).
    client.push_one(queue, {"new": True})
    assert [m["data"] for m in client.pop_messages(queue, consumer_group="late")] == [{"new": True}]


def test_a_percent_encoded_queue_name_is_decoded(client, pg):
    queue = unique_name("del x/y")
    client.push_one(queue, {"n": 1})
    assert schema.queue_exists(pg, queue)
    resp = delete_queue(client, queue)
    assert resp.body == {"deleted": True, "queue": queue, "existed": True}
    assert not schema.queue_exists(pg, queue)
