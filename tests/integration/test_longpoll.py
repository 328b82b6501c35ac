"""Long polling: a parked pop is woken by a push and times out with 204 (semantics §4.8)."""
import threading
import time

from harness import unique_name
from harness.assertions import assert_no_content

PARK_TIMEOUT_MS = 10000


def park_pop(broker, queue, outcome, **kw):
    """Run one wait=true pop in a thread; outcome gets the response and the monotonic end time."""
    def run():
        with broker.client() as c:
            try:
                outcome["response"] = c.pop(queue, wait=True, timeout_ms=PARK_TIMEOUT_MS, **kw)
            except Exception as exc:  # surfaced by the assertion in the test
                outcome["error"] = exc
            outcome["ended"] = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def assert_woken_by_push(broker, client, queue, **kw):
    outcome = {}
    started = time.monotonic()
    thread = park_pop(broker, queue, outcome, **kw)
    # Give the pop time to reach the broker and park: a push that lands first would be found by
    # the initial pop attempt and prove nothing about waking.
    time.sleep(0.7)
    assert "ended" not in outcome, f"pop returned before anything was pushed: {outcome}"
    pushed_at = time.monotonic()
    pushed = client.push_one(queue, {"wake": True}, partition=kw.get("partition"))
    assert pushed.status == 201, pushed
    thread.join(PARK_TIMEOUT_MS / 1000 + 6)
    assert "error" not in outcome, outcome.get("error")
    resp = outcome["response"]
    assert resp.status == 200, resp
    assert [m["data"] for m in resp.body["messages"]] == [{"wake": True}]
    woke_after = outcome["ended"] - pushed_at
    assert woke_after < 3.0, f"parked pop returned {woke_after:.2f}s after the push"
    assert outcome["ended"] - started < PARK_TIMEOUT_MS / 1000


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
