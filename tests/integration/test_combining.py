"""Ack and pop combining (docs/combining.md): many consumers at batch 1 on one broker whose ack and pop
calls are limited to one in flight, so concurrent requests queue up and share queen.ack_many and
queen.pop_many calls. Every message is delivered once per group, each delivery under a lease of its own,
every ack lands, and /metrics/prometheus shows that requests were combined."""
import re
import threading

import pytest

from harness import Broker, QUEUE_MODE, ack_item, unique_name
from harness.waiting import Deadline, poll_until, run_workers

MESSAGES = 240
PARTITIONS = 24
CONSUMERS = 12


@pytest.fixture(scope="module")
def combining_broker(pg):
    instance = Broker(pg=pg, name="it-combining",
                      env={"POP_MAX_CONCURRENT_CALLS": "1", "ACK_MAX_CONCURRENT_CALLS": "1"}).start()
    yield instance
    instance.stop()


def combined_counts(client):
    """{(series, operation): value} of the combiner counters."""
    resp = client.prometheus()
    assert resp.status == 200, resp
    counts = {}
    for match in re.finditer(r'^(queen_combined_(?:calls|requests)_total)\{operation="(\w+)"\} (\d+)$',
                             resp.body, re.MULTILINE):
        counts[(match.group(1), match.group(2))] = int(match.group(3))
    return counts


def push_spread(client, queue, count, partitions):
    items = [{"queue": queue, "partition": f"p{i % partitions}", "transactionId": f"m{i}", "payload": {"i": i}}
             for i in range(count)]
    for start in range(0, count, 100):
        resp = client.push(items[start:start + 100])
        assert resp.status == 201, resp
        assert all(r["status"] == "queued" for r in resp.body), resp.body


def consume_at_batch_one(broker, queue, expected, group=None, name_group_in_ack=True, single_ack=False):
    """CONSUMERS workers pop one message at a time (long polls) and ack it, until `expected` deliveries
    are counted among them. Returns every delivery as (transactionId, leaseId, partitionId)."""
    deliveries, lock = [], threading.Lock()
    deadline = Deadline(60)

    def worker(_index):
        with broker.client() as client:
            while not deadline.expired():
                with lock:
                    if len(deliveries) >= expected:
                        return
                resp = client.pop(queue, batch=1, wait=True, timeout_ms=300, consumer_group=group)
                if resp.status == 204:
                    continue
                assert resp.status == 200, resp
                messages = resp.body["messages"]
                assert len(messages) == 1, resp.body
                message = messages[0]
                assert message["leaseId"] == resp.body["leaseId"]
                ack_group = group if name_group_in_ack else None
                if single_ack:
                    item = ack_item(message)
                    acked = client.ack(item["transactionId"], item["partitionId"], lease_id=item["leaseId"],
                                       consumer_group=ack_group)
                    results = acked.body if isinstance(acked.body, list) else [acked.body]
                else:
                    acked = client.ack_batch([ack_item(message)], consumer_group=ack_group)
                    results = acked.body
                assert acked.status == 200, acked
                assert all(r["success"] for r in results), results
                with lock:
                    deliveries.append((message["transactionId"], message["leaseId"], message["partitionId"]))

    run_workers(CONSUMERS, worker, timeout=90, name="consumer")
    return deliveries


def assert_each_once(deliveries, count):
    txids = [d[0] for d in deliveries]
    assert sorted(txids) == sorted(f"m{i}" for i in range(count)), "every message exactly once"
    leases = [d[1] for d in deliveries]
    assert len(set(leases)) == len(leases), "every delivery under a lease of its own"


def test_many_batch_one_consumers_get_every_message_once_and_acks_land(combining_broker):
    queue = unique_name("comb")
    with combining_broker.client() as client:
        assert client.configure(queue, {"leaseTime": 60}).status == 200
        push_spread(client, queue, MESSAGES, PARTITIONS)
        before = combined_counts(client)

        deliveries = consume_at_batch_one(combining_broker, queue, MESSAGES, single_ack=True)
        assert_each_once(deliveries, MESSAGES)

        # every ack landed: nothing is left for the group, now or after the leases would have expired
        assert client.pop(queue, batch=10, partitions=PARTITIONS).status == 204
        after = combined_counts(client)
    for operation in ("pop", "ack"):
        calls = after[("queen_combined_calls_total", operation)] - before.get(("queen_combined_calls_total", operation), 0)
        combined = (after[("queen_combined_requests_total", operation)]
                    - before.get(("queen_combined_requests_total", operation), 0))
        assert combined > 0, f"{operation}: no request shared a call ({after})"
        assert calls < MESSAGES, f"{operation}: {calls} calls for {MESSAGES} requests: nothing combined"


def test_groups_and_queue_mode_acked_without_a_group_share_calls_and_stay_apart(combining_broker):
    """A named group's consumers ack without naming the group (recognised by the lease) while queue-mode
    consumers of the same queue ack too: combined acks keep each request's group."""
    queue = unique_name("comb-groups")
    count = MESSAGES // 2
    with combining_broker.client() as client:
        assert client.configure(queue, {"leaseTime": 60}).status == 200
        push_spread(client, queue, count, PARTITIONS)
        results = {}

        def run(group):
            results[group] = consume_at_batch_one(combining_broker, queue, count, group=group,
                                                  name_group_in_ack=False)

        threads = [threading.Thread(target=run, args=(g,)) for g in (None, "fanout")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(100)
        assert set(results) == {None, "fanout"}, "a consumer set did not finish"
        assert_each_once(results[None], count)
        assert_each_once(results["fanout"], count)
        for group in (None, "fanout"):
            assert client.pop(queue, batch=10, partitions=PARTITIONS, consumer_group=group).status == 204, group
        assert client.pop(queue, batch=10, partitions=PARTITIONS, consumer_group=QUEUE_MODE).status == 204


def test_parked_long_polls_each_get_their_own_message_when_pushes_arrive(combining_broker):
    queue = unique_name("comb-park")
    with combining_broker.client() as client:
        assert client.configure(queue, {"leaseTime": 60}).status == 200
    got, lock = [], threading.Lock()

    def parked(index):
        with combining_broker.client() as c:
            if index == 0:  # the producer: pushes once the others are parked
                poll_until(lambda: c.gauges().get("queen_parked_pops", 0) >= CONSUMERS - 1, timeout=20,
                           what="long polls parked")
                push_spread(c, queue, CONSUMERS - 1, CONSUMERS - 1)
                return
            resp = c.pop(queue, batch=1, wait=True, timeout_ms=15000)
            assert resp.status == 200, resp
            with lock:
                got.extend((m["transactionId"], m["leaseId"], m["partitionId"]) for m in resp.body["messages"])

    run_workers(CONSUMERS, parked, timeout=60, name="parked")
    assert_each_once(got, CONSUMERS - 1)


def flow_granted(client):
    """{lane: slots granted} of the admission lanes (docs/flow-control.md)."""
    resp = client.prometheus()
    assert resp.status == 200, resp
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r'^queen_flow_granted_total\{lane="(\w+)"\} (\S+)$', resp.body, re.MULTILINE)}


def test_one_pop_and_one_ack_lane_slot_serve_combined_calls_one_slot_per_call(broker_factory):
    """Pops and acks take their lane slot per combined call, not per request: with one Pop and one Ack
    slot, batch-1 consumers still share calls, and the lanes grant exactly one slot per call made."""
    broker = broker_factory(name="it-combining-lanes", env={
        "QUEEN_FLOW_POP_SLOTS": "1", "QUEEN_FLOW_ACK_SLOTS": "1"})
    queue = unique_name("comb-lanes")
    count = MESSAGES // 2
    with broker.client() as client:
        assert client.configure(queue, {"leaseTime": 60}).status == 200
        push_spread(client, queue, count, PARTITIONS)
        calls_before, granted_before = combined_counts(client), flow_granted(client)

        assert_each_once(consume_at_batch_one(broker, queue, count), count)
        assert client.pop(queue, batch=10, partitions=PARTITIONS).status == 204

        calls_after, granted_after = combined_counts(client), flow_granted(client)
    for operation in ("pop", "ack"):
        calls = (calls_after[("queen_combined_calls_total", operation)]
                 - calls_before.get(("queen_combined_calls_total", operation), 0))
        granted = granted_after[operation] - granted_before.get(operation, 0)
        assert granted == calls, f"{operation}: {granted} slots granted for {calls} database calls"
        combined = (calls_after[("queen_combined_requests_total", operation)]
                    - calls_before.get(("queen_combined_requests_total", operation), 0))
        assert combined > 0, f"{operation}: no request shared a call through the one slot ({calls_after})"
