"""Long polling: a parked pop is woken by a push and times out with 204."""
import time

from harness import ParkedPop, unique_name
from harness.assertions import assert_no_content

PARK_TIMEOUT_MS = 10000


def assert_woken_by_push(broker, client, queue, **kw):
    # A push that lands before the pop has parked would be found by its first check and prove
    # nothing about waking.
    pop = ParkedPop(broker, queue, timeout_ms=PARK_TIMEOUT_MS, **kw).wait_parked()
    assert pop.ended is None, f"pop returned before anything was pushed: {pop.response or pop.error}"
    pushed_at = time.monotonic()
    pushed = client.push_one(queue, {"wake": True}, partition=kw.get("partition"))
    assert pushed.status == 201, pushed
    resp = pop.result(timeout=PARK_TIMEOUT_MS / 1000 + 6)
    assert resp.status == 200, resp
    assert [m["data"] for m in resp.body["messages"]] == [{"wake": True}]
    woke_after = pop.ended - pushed_at
    assert woke_after < 3.0, f"parked pop returned {woke_after:.2f}s after the push"
    assert pop.ended - pop.started < PARK_TIMEOUT_MS / 1000


def test_parked_wildcard_pop_returns_as_soon_as_a_message_is_pushed(broker, client):
    assert_woken_by_push(broker, client, unique_name("park"))


def test_parked_group_pop_on_a_partition_returns_when_pushed(broker, client):
    assert_woken_by_push(broker, client, unique_name("park-group"), partition="p1", consumer_group="g")


def test_long_poll_on_an_empty_queue_times_out_with_204(client):
    started = time.monotonic()
    resp = client.pop(unique_name("park-empty"), wait=True, timeout_ms=1000)
    elapsed = time.monotonic() - started
    assert_no_content(resp)
    assert 0.9 <= elapsed < 6.0, f"a 1000 ms long poll answered after {elapsed:.2f}s"
