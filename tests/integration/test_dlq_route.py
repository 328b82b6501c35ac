"""GET /api/v1/dlq: dead letters listed with total, real paging and every filter (docs/api-extensions.md)."""
import datetime
import re

from harness import QUEUE_MODE, poll_until, unique_name
from harness.assertions import assert_json_error, parse_iso

MILLISECOND_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
ENTRY_KEYS = {"id", "transactionId", "partitionId", "queue", "partition", "consumerGroup", "errorMessage",
              "retryCount", "data", "producerSub", "createdAt", "failedAt"}


def exhaust(client, queue, partition, txid, group=None, error=None, attempts=2):
    """Pop the message and fail it `attempts` times (retryLimit + 1): the last failure dead-letters it."""
    for attempt in range(attempts):
        msgs = poll_until(lambda: client.pop_messages(queue, partition=partition, consumer_group=group),
                          timeout=10, interval=0.05, what=f"{txid} attempt {attempt}")
        assert msgs[0]["transactionId"] == txid
        resp = client.ack(txid, msgs[0]["partitionId"], lease_id=msgs[0]["leaseId"], status="failed",
                          error=error, consumer_group=group)
        assert resp.body[0]["dlq"] is (attempt == attempts - 1), resp.body


def dlq(client, **params):
    resp = client.get("/api/v1/dlq", params=params)
    assert resp.status == 200, resp
    return resp.body


def iso_ms(dt):
    return dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def make_dead_letters(client, queue):
    """Three dead letters, oldest first: d1 (p1, queue mode, no error given), d2 (p2, queue mode, "smtp 451"),
    d3 (p3, group g1, "boom")."""
    assert client.configure(queue, {"retryLimit": 1, "retryDelay": 0, "leaseTime": 30}).status == 200
    for n, partition in ((1, "p1"), (2, "p2"), (3, "p3")):
        assert client.push_one(queue, {"n": n}, partition=partition, transaction_id=f"d{n}").status == 201
    exhaust(client, queue, "p1", "d1")
    exhaust(client, queue, "p2", "d2", error="smtp 451")
    exhaust(client, queue, "p3", "d3", group="g1", error="boom")


def test_dead_letters_are_listed_newest_first_with_the_contract_shape(client):
    queue = unique_name("dlqr")
    make_dead_letters(client, queue)
    body = dlq(client, queue=queue)
    assert body["total"] == 3
    assert body["limit"] == 100 and body["offset"] == 0
    assert body["pagination"] == {"limit": 100, "offset": 0}
    entries = body["messages"]
    assert [e["transactionId"] for e in entries] == ["d3", "d2", "d1"]
    failed_at = [parse_iso(e["failedAt"]) for e in entries]
    assert failed_at == sorted(failed_at, reverse=True)
    d3, d2, d1 = entries
    for e in entries:
        assert ENTRY_KEYS <= set(e), ENTRY_KEYS - set(e)
        assert e["queue"] == queue
        assert e["retryCount"] == 1
        assert e["producerSub"] is None
        assert parse_iso(e["createdAt"]) <= parse_iso(e["failedAt"])
        for key in ("createdAt", "failedAt"):
            assert MILLISECOND_TS.match(e[key]), e[key]
    assert (d1["partition"], d1["consumerGroup"], d1["data"], d1["errorMessage"]) == \
        ("p1", QUEUE_MODE, {"n": 1}, "Retries exhausted")
    assert (d2["partition"], d2["errorMessage"], d2["data"]) == ("p2", "smtp 451", {"n": 2})
    assert (d3["partition"], d3["consumerGroup"], d3["errorMessage"]) == ("p3", "g1", "boom")


def test_paging_is_real_and_total_counts_every_match(client):
    queue = unique_name("dlqr-page")
    make_dead_letters(client, queue)
    first = dlq(client, queue=queue, limit=2)
    assert [e["transactionId"] for e in first["messages"]] == ["d3", "d2"]
    assert first["total"] == 3 and first["pagination"] == {"limit": 2, "offset": 0}
    second = dlq(client, queue=queue, limit=2, offset=2)
    assert [e["transactionId"] for e in second["messages"]] == ["d1"]
    assert second["total"] == 3 and second["offset"] == 2
    past_the_end = dlq(client, queue=queue, limit=2, offset=10)
    assert past_the_end["messages"] == [] and past_the_end["total"] == 3


def test_filters_by_group_partition_and_failure_time(client):
    queue = unique_name("dlqr-filter")
    make_dead_letters(client, queue)
    everything = {e["transactionId"]: e for e in dlq(client, queue=queue)["messages"]}

    def txids(**params):
        body = dlq(client, queue=queue, **params)
        assert body["total"] == len(body["messages"]), body
        return [e["transactionId"] for e in body["messages"]]

    assert txids(consumerGroup=QUEUE_MODE) == ["d2", "d1"]
    assert txids(consumerGroup="g1") == ["d3"]
    assert txids(consumerGroup="nobody") == []
    assert txids(partition="p2") == ["d2"]
    assert txids(partition="p2", consumerGroup="g1") == []

    # Bounds are inclusive; the listing shows milliseconds, the database keeps microseconds.
    d2_failed = parse_iso(everything["d2"]["failedAt"])
    one_ms = datetime.timedelta(milliseconds=1)
    assert txids(**{"from": iso_ms(d2_failed), "to": iso_ms(d2_failed + one_ms)}) == ["d2"]
    assert txids(**{"from": iso_ms(d2_failed)}) == ["d3", "d2"]
    assert txids(to=iso_ms(d2_failed + one_ms)) == ["d2", "d1"]
    later = parse_iso(everything["d3"]["failedAt"]) + datetime.timedelta(seconds=5)
    assert txids(**{"from": iso_ms(later)}) == []
    # Epoch milliseconds are accepted too.
    assert txids(to=str(int((d2_failed + one_ms).timestamp() * 1000))) == ["d2", "d1"]


def test_other_queues_are_not_listed(client):
    queue, other = unique_name("dlqr-a"), unique_name("dlqr-b")
    assert client.configure(other, {"retryLimit": 0, "retryDelay": 0}).status == 200
    client.push_one(other, {"x": 1}, transaction_id="other-1")
    exhaust(client, other, None, "other-1", attempts=1)
    body = dlq(client, queue=queue)
    assert body == {"messages": [], "total": 0, "limit": 100, "offset": 0, "pagination": {"limit": 100, "offset": 0}}
    assert [e["transactionId"] for e in dlq(client, queue=other)["messages"]] == ["other-1"]


def test_an_unreadable_time_bound_is_400(client):
    assert_json_error(client.get("/api/v1/dlq", params={"queue": "q", "from": "yesterday"}), 400,
                      "from must be an ISO-8601 timestamp or epoch milliseconds")
