"""Maintenance flags: GET/POST round trips, persistence and their effect (docs/operations-spool.md,
"Planned database work").

The flags are cluster-wide rows in queen.system_state, so this module runs its broker on a
database of its own: turning push maintenance on must not divert other tests' pushes.
"""
import pytest

from harness import Broker, TempDatabase, poll_until, schema, unique_name
from harness.assertions import assert_no_content

BUFFER_STATS_KEYS = {"pendingCount", "failedCount", "dbHealthy", "files", "bytes", "failedFiles"}


@pytest.fixture(scope="module")
def own_db(pg):
    with TempDatabase(pg) as database:
        yield database.target


@pytest.fixture(scope="module")
def broker(own_db):
    instance = Broker(pg=own_db, name="it-maintenance").start()
    yield instance
    instance.stop()


@pytest.fixture
def client(broker):
    with broker.client() as c:
        yield c
        # Never leave a flag on for the next test, whatever happened.
        c.set_maintenance(False)
        c.set_pop_maintenance(False)


def prometheus_gauge(client, name):
    for line in client.prometheus().body.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not exported")


def test_push_maintenance_get_shape_when_off(client):
    resp = client.maintenance()
    assert resp.status == 200, resp
    body = resp.body
    assert body["maintenanceMode"] is False
    assert body["popMaintenanceMode"] is False
    assert body["bufferedMessages"] == 0
    assert body["bufferHealthy"] is True
    assert BUFFER_STATS_KEYS <= set(body["bufferStats"]), body["bufferStats"]
    assert set(body["bufferStats"]["failedFiles"]) >= {"count", "totalBytes", "totalMB"}


def test_push_maintenance_round_trip_spools_and_then_drains(client, own_db):
    queue = unique_name("maint")
    on = client.set_maintenance(True)
    assert on.status == 200, on
    assert on.body["maintenanceMode"] is True
    assert isinstance(on.body["bufferedMessages"], int)
    assert isinstance(on.body["bufferHealthy"], bool)
    assert isinstance(on.body["message"], str)
    assert client.maintenance().body["maintenanceMode"] is True
    assert schema.system_flag(own_db, "maintenance") is True
    assert prometheus_gauge(client, "queen_maintenance_mode_enabled") == 1.0

    pushed = client.push([{"queue": queue, "payload": {"i": i}, "transactionId": f"m-{i}"} for i in range(3)])
    assert pushed.status == 201, pushed
    assert [r["status"] for r in pushed.body] == ["buffered"] * 3
    assert [r["transactionId"] for r in pushed.body] == ["m-0", "m-1", "m-2"]
    assert schema.message_count(own_db, queue) == 0, "push maintenance must not touch the database"
    assert client.maintenance().body["bufferedMessages"] == 3

    off = client.set_maintenance(False)
    assert off.status == 200 and off.body["maintenanceMode"] is False, off
    assert prometheus_gauge(client, "queen_maintenance_mode_enabled") == 0.0
    poll_until(lambda: client.maintenance().body["bufferedMessages"] == 0, timeout=15,
               what="the spool drained after maintenance was turned off")
    msgs = client.drain(queue, 3, timeout=10)
    assert [m["transactionId"] for m in msgs] == ["m-0", "m-1", "m-2"]


def test_pop_maintenance_round_trip_holds_back_stored_messages(client, own_db):
    queue = unique_name("popmaint")
    client.push_one(queue, {"x": 1})
    on = client.set_pop_maintenance(True)
    assert on.status == 200, on
    assert on.body["popMaintenanceMode"] is True
    assert isinstance(on.body["message"], str)
    got = client.pop_maintenance()
    assert got.status == 200 and got.body["popMaintenanceMode"] is True, got
    assert schema.system_flag(own_db, "pop_maintenance") is True
    assert client.maintenance().body["popMaintenanceMode"] is True
    assert_no_content(client.pop(queue, batch=10))

    off = client.set_pop_maintenance(False)
    assert off.body["popMaintenanceMode"] is False, off
    assert client.pop_maintenance().body["popMaintenanceMode"] is False
    assert [m["data"] for m in client.pop_messages(queue, batch=10)] == [{"x": 1}]


def test_flags_are_persisted_and_reread_at_boot(broker, client):
    assert client.set_pop_maintenance(True).status == 200
    broker.restart()
    with broker.client() as fresh:
        assert fresh.pop_maintenance().body["popMaintenanceMode"] is True
        assert fresh.set_pop_maintenance(False).body["popMaintenanceMode"] is False


def test_a_spooled_push_keeps_namespace_task_and_trace_when_replay_creates_the_queue(client, own_db):
    """The spool record carries every field of a push item: a queue that replay creates gets the
    namespace and task the client named, exactly as a live push would store them."""
    queue, namespace = unique_name("nsq"), unique_name("billing")
    trace = "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert client.set_maintenance(True).status == 200
    pushed = client.push([{"queue": queue, "partition": "p", "namespace": namespace, "task": "render",
                           "traceId": trace, "transactionId": "ns-1", "payload": {"n": 1}}])
    assert pushed.status == 201 and pushed.body[0]["status"] == "buffered", pushed
    assert not schema.queue_exists(own_db, queue)

    assert client.set_maintenance(False).status == 200
    poll_until(lambda: client.maintenance().body["bufferedMessages"] == 0, timeout=15,
               what="the spool drained after maintenance was turned off")
    stored = own_db.query("select namespace, task from queen.queues where name = :'q'", q=queue)
    assert stored == [{"namespace": namespace, "task": "render"}]
    popped = client.get("/api/v1/pop", params={"namespace": namespace, "task": "render", "batch": 10})
    assert popped.status == 200, popped
    assert [(m["queue"], m["transactionId"], m["traceId"]) for m in popped.body["messages"]] == [
        (queue, "ns-1", trace)]
