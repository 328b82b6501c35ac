"""GET /api/v1/pop?namespace=&task= and multi-partition pops (partitions=N; docs/procedures.md pop_messages)."""
from harness import unique_name


def test_filter_pop_needs_a_namespace_or_a_task(client):
    resp = client.get("/api/v1/pop", params={"batch": 1})
    assert resp.status == 400
    assert resp.body == {"error": "namespace or task is required"}


def test_filter_pop_takes_matching_queues_higher_priority_first(client):
    namespace = unique_name("ns")
    low, high, other = unique_name("low"), unique_name("high"), unique_name("other")
    assert client.configure(low, {"priority": 1}, namespace=namespace, task="render").status == 200
    assert client.configure(high, {"priority": 9}, namespace=namespace, task="render").status == 200
    assert client.configure(other, {"priority": 50}, namespace=unique_name("elsewhere"), task="render").status == 200
    for queue in (low, high, other):
        assert client.push([{"queue": queue, "transactionId": f"{queue}-1", "payload": {"q": queue}}]).status == 201

    first = client.get("/api/v1/pop", params={"namespace": namespace, "task": "render", "batch": 10})
    assert first.status == 200, first
    assert first.body["queue"] == high
    assert [m["queue"] for m in first.body["messages"]] == [high]
    second = client.get("/api/v1/pop", params={"namespace": namespace, "batch": 10})
    assert second.status == 200, second
    assert [m["queue"] for m in second.body["messages"]] == [low]
    # The queue of another namespace is never handed out through this filter.
    third = client.get("/api/v1/pop", params={"namespace": namespace, "batch": 10})
    assert third.status == 204


def test_a_multi_partition_pop_shares_one_lease_and_respects_the_global_batch(client):
    queue = unique_name("multi")
    items = [{"queue": queue, "partition": f"p{p}", "transactionId": f"p{p}-{i}", "payload": {"i": i}}
             for p in range(3) for i in range(4)]
    assert client.push(items).status == 201

    resp = client.pop(queue, batch=10, partitions=3)
    assert resp.status == 200, resp
    messages = resp.body["messages"]
    assert len(messages) == 10
    assert {m["leaseId"] for m in messages} == {resp.body["leaseId"]}
    assert resp.body["partitionsClaimed"] == 3
    # Grouped partition by partition, each in its own order.
    by_partition = {}
    for m in messages:
        by_partition.setdefault(m["partition"], []).append(int(m["transactionId"].split("-")[1]))
    assert len(by_partition) == 3
    for order in by_partition.values():
        assert order == sorted(order) and order[0] == 0
    # One renewal extends every claimed partition.
    extended = client.extend_lease(resp.body["leaseId"], seconds=120)
    assert extended.status == 200 and extended.body["success"] is True
