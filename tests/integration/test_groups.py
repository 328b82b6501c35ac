"""Consumer groups: fan-out, per-group leases, subscription start points (docs/procedures.md pop_messages)."""
from harness import QUEUE_MODE, ack_item, unique_name
from harness.assertions import assert_no_content


def test_every_group_and_queue_mode_receive_every_message(client):
    queue = unique_name("fanout")
    client.push([{"queue": queue, "payload": {"i": i}} for i in range(3)])
    for group in ("billing", "audit", None):
        popped = client.pop(queue, batch=10, consumer_group=group)
        assert popped.status == 200, (group, popped)
        assert [m["data"]["i"] for m in popped.body["messages"]] == [0, 1, 2], group
        assert all(m["consumerGroup"] == (group or QUEUE_MODE) for m in popped.body["messages"])
        acked = client.ack_batch([ack_item(m) for m in popped.body["messages"]], consumer_group=group)
        assert acked.status == 200 and all(r["success"] for r in acked.body), (group, acked.body)
    for group in ("billing", "audit", None):
        assert_no_content(client.pop(queue, batch=10, consumer_group=group))


def test_a_lease_blocks_only_its_own_group(client):
    queue = unique_name("grouplease")
    client.push([{"queue": queue, "payload": {"i": i}} for i in range(2)])
    held = client.pop_messages(queue, batch=1, consumer_group="g1")
    assert [m["data"]["i"] for m in held] == [0]
    # One in-flight batch per (partition, group): g1 waits, g2 and queue mode do not.
    assert_no_content(client.pop(queue, batch=1, consumer_group="g1"))
    assert [m["data"]["i"] for m in client.pop_messages(queue, batch=10, consumer_group="g2")] == [0, 1]
    assert [m["data"]["i"] for m in client.pop_messages(queue, batch=10)] == [0, 1]
    acked = client.ack_batch([ack_item(m) for m in held], consumer_group="g1")
    assert acked.body[0]["success"] is True, acked.body
    assert [m["data"]["i"] for m in client.pop_messages(queue, batch=10, consumer_group="g1")] == [1]


def test_acking_for_one_group_does_not_consume_for_another(client):
    queue = unique_name("groupack")
    client.push_one(queue, {"x": 1})
    a = client.pop_messages(queue, consumer_group="a")
    client.ack_batch([ack_item(m) for m in a], consumer_group="a")
    b = client.pop_messages(queue, consumer_group="b")
    assert [m["data"] for m in b] == [{"x": 1}]


def test_subscription_mode_new_starts_at_the_first_pop(client):
    queue = unique_name("subnew")
    client.push_one(queue, {"v": "history"})
    assert_no_content(client.pop(queue, batch=10, consumer_group="late", subscription_mode="new"))
    client.push_one(queue, {"v": "fresh"})
    # The start point is sticky: later pops without a mode keep it.
    msgs = client.pop_messages(queue, batch=10, consumer_group="late")
    assert [m["data"]["v"] for m in msgs] == ["fresh"]
    everything = client.pop_messages(queue, batch=10, consumer_group="early")
    assert [m["data"]["v"] for m in everything] == ["history", "fresh"]


def test_an_ack_without_a_group_is_applied_to_the_group_holding_the_lease(client):
    """A consumer that popped with a group and acks without naming it (docs/procedures.md ack_messages)."""
    from harness import unique_name

    queue = unique_name("infer")
    assert client.push([{"queue": queue, "transactionId": "x1", "payload": {}}]).status == 201
    popped = client.pop(queue, consumer_group="mailer", batch=1)
    assert popped.status == 200, popped
    message = popped.body["messages"][0]
    acked = client.ack(message["transactionId"], message["partitionId"], lease_id=message["leaseId"])
    assert acked.status == 200 and acked.body[0]["success"] is True, acked
    # The mailer group moved on; queue mode never consumed the message.
    assert client.pop(queue, consumer_group="mailer", batch=1).status == 204
    assert client.pop(queue, batch=1).status == 200
