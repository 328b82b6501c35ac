"""The admission arbiter (docs/flow-control.md): lanes of database slots, 429 with Retry-After when a
lane is saturated, isolation of acks from a push flood, and spool replay's guaranteed Maint share.

Each test starts its own broker with tight lane limits, so saturation comes from a few client
threads; every wait is on a condition (metrics, statuses), never a fixed sleep.
"""
import threading
import time

import pytest

from harness import BackgroundWorker, ParkedPop, TempDatabase, ack_item, poll_until, schema, unique_name
from harness.assertions import assert_json_error


def lane_value(client, name, lane, extra=""):
    return client.labelled(name).get(f'lane="{lane}"' + extra, 0.0)


def flood_pushes(broker, queue, stop, threads=8, per_request=1):
    """Threads pushing `per_request` messages per request as fast as they can until `stop` is set.
    Returns the threads, the statuses seen ({status: count}) and every refused (items, response)."""
    seen, refused, lock = {}, [], threading.Lock()

    def producer(index):
        with broker.client() as c:
            n = 0
            while not stop.is_set():
                items = [{"queue": queue, "payload": {"n": n}, "transactionId": f"f{index}-{n}-{k}"}
                         for k in range(per_request)]
                resp = c.push(items, timeout=30)
                with lock:
                    seen[resp.status] = seen.get(resp.status, 0) + 1
                    if resp.status == 429:
                        refused.append((items, resp))
                n += 1

    workers = [threading.Thread(target=producer, args=(i,), daemon=True) for i in range(threads)]
    for w in workers:
        w.start()
    return workers, seen, refused


def test_a_saturated_push_lane_answers_429_with_retry_after_and_stores_nothing(broker_factory, pg):
    broker = broker_factory(name="adm-429", env={
        "QUEEN_FLOW_PUSH_SLOTS": 1, "QUEEN_FLOW_PUSH_QUEUE": 0, "QUEEN_FLOW_PUSH_WAIT_MS": 1500})
    queue = unique_name("adm429")
    stop = threading.Event()
    workers, seen, refused = flood_pushes(broker, queue, stop)
    try:
        poll_until(lambda: refused, timeout=30, what="a push refused by the saturated Push lane")
    finally:
        stop.set()
        for w in workers:
            w.join(30)
    items, resp = refused[0]
    assert_json_error(resp, 429, prefix="push lane busy: ")
    assert "QUEEN_FLOW_PUSH_QUEUE" in resp.body["error"], resp.body
    # Retry-After: the lane's wait bound in whole seconds, rounded up.
    assert resp.header("retry-after") == "2", resp.headers
    # The whole request was refused: none of its items is stored, every 201 item is.
    stored = {row["transaction_id"] for row in schema.stored_messages(pg, [queue])}
    refused_ids = {item["transactionId"] for batch, _ in refused for item in batch}
    assert not (stored & refused_ids)
    assert len(stored) == seen.get(201, 0), seen
    assert set(seen) <= {201, 429}, seen
    with broker.client() as c:
        assert lane_value(c, "queen_flow_rejected_total", "push", ',reason="queue_full"') >= len(refused)
        assert lane_value(c, "queen_flow_slots", "push") == 1.0


def test_a_saturated_push_lane_does_not_delay_acks_past_their_bound(broker_factory):
    ack_bound_ms = 2000
    # Few handler threads, so that without lane bounds a push flood would hold every one of them.
    broker = broker_factory(name="adm-ack", env={
        "NUM_WORKERS": 4, "HTTP_MAX_THREADS": 8, "PUSH_MAX_CONCURRENT_CALLS": 1,
        "QUEEN_FLOW_PUSH_SLOTS": 1, "QUEEN_FLOW_PUSH_QUEUE": 2, "QUEEN_FLOW_PUSH_WAIT_MS": 200,
        "QUEEN_FLOW_ACK_WAIT_MS": ack_bound_ms})
    work, flood = unique_name("adm-work"), unique_name("adm-flood")
    with broker.client() as c:
        assert c.push([{"queue": work, "payload": {"n": n}} for n in range(20)]).status == 201
        popped = c.pop_messages(work, batch=20)
        assert len(popped) == 20
    stop = threading.Event()
    workers, seen, refused = flood_pushes(broker, flood, stop, threads=16, per_request=50)
    try:
        with broker.client() as c:
            poll_until(lambda: lane_value(c, "queen_flow_rejected_total", "push", ',reason="queue_full"') +
                       lane_value(c, "queen_flow_rejected_total", "push", ',reason="timeout"') > 0,
                       timeout=30, what="the Push lane saturated (pushes refused)")
            for message in popped:
                started = time.monotonic()
                resp = c.ack(message["transactionId"], message["partitionId"], lease_id=message.get("leaseId"))
                elapsed_ms = (time.monotonic() - started) * 1000
                assert resp.status == 200 and resp.body[0]["success"], resp
                assert elapsed_ms < ack_bound_ms, f"an ack took {elapsed_ms:.0f} ms under the push flood"
            assert lane_value(c, "queen_flow_rejected_total", "ack", ',reason="timeout"') == 0
            assert lane_value(c, "queen_flow_rejected_total", "ack", ',reason="queue_full"') == 0
    finally:
        stop.set()
        for w in workers:
            w.join(30)
    assert seen.get(429, 0) > 0, seen


def test_spool_replay_progresses_at_the_maint_share_under_full_live_load(broker_factory, pg):
    events, per_file = 400, 40
    with TempDatabase(pg) as database:
        own_db = database.target
        # One slot for everything. Live transactions (Push lane, never diverted to the spool) from
        # six threads keep it busy with a queue behind it, so by wake order alone Maint would never
        # get it: replay progresses only through its guaranteed share.
        broker = broker_factory(pg=own_db, name="adm-maint", env={
            "FILE_BUFFER_FLUSH_MS": 50, "FILE_BUFFER_EVENTS_PER_FILE": per_file,
            "QUEEN_FLOW_SLOTS": 1, "QUEEN_FLOW_PUSH_SLOTS": 1, "QUEEN_FLOW_POP_SLOTS": 1,
            "QUEEN_FLOW_ACK_SLOTS": 1, "QUEEN_FLOW_MAINT_SLOTS": 1,
            "QUEEN_FLOW_PUSH_WAIT_MS": 60000, "QUEEN_FLOW_MAINT_WAIT_MS": 5000})
        live, spooled = unique_name("adm-live"), unique_name("adm-spooled")
        with broker.client() as c:
            assert c.set_maintenance(True).status == 200
            try:
                resp = c.push([{"queue": spooled, "payload": {"n": n}, "transactionId": f"s{n}"}
                               for n in range(events)])
                assert resp.status == 201 and {i["status"] for i in resp.body} == {"buffered"}, resp

                def transact(stop):
                    with broker.client() as cc:
                        n = 0
                        while not stop.is_set():
                            items = [{"queue": live, "partition": f"p{k % 4}", "payload": {"k": k}}
                                     for k in range(200)]
                            got = cc.post("/api/v1/transaction",
                                          {"operations": [{"type": "push", "items": items}]}, timeout=90)
                            assert got.status == 200 and got.body["success"], got
                            n += 1
                        return n

                producers = [BackgroundWorker(transact, name=f"tx{i}").start() for i in range(6)]
                try:
                    poll_until(lambda: lane_value(c, "queen_flow_waiting", "push") >= 3, timeout=30,
                               what="live transactions queued for the one slot")
                    push_before = lane_value(c, "queen_flow_granted_total", "push")
                    assert c.set_maintenance(False).status == 200
                    poll_until(lambda: c.maintenance().body["bufferedMessages"] == 0, timeout=120,
                               what="the spool drained under full live load")
                    live_grants = lane_value(c, "queen_flow_granted_total", "push") - push_before
                    maint_grants = lane_value(c, "queen_flow_granted_total", "maint")
                finally:
                    for producer in producers:
                        producer.stop(timeout=120)
            finally:
                c.set_maintenance(False)
            assert schema.message_count(own_db, spooled) == events
            # One Maint slot per replayed file, while live work kept the slot busy: replay took about
            # one grant in twenty, neither starved nor ahead of the transactions.
            assert maint_grants >= events // per_file
            assert live_grants >= 15 * (events // per_file - 1), (live_grants, maint_grants)
        broker.stop()  # before its database is dropped


def test_long_polls_hold_no_slot_while_parked(broker_factory):
    # One Pop slot: a parked long poll must leave it free for the next pop's database call. Its rechecks take
    # the slot for a moment, so the next pop may wait in the lane's queue, but for at most QUEEN_FLOW_POP_WAIT_MS,
    # far below the 20 s a poll that kept its slot while parked would hold it (the pop would be refused 429).
    broker = broker_factory(name="adm-park", env={"QUEEN_FLOW_POP_SLOTS": 1, "QUEEN_FLOW_POP_QUEUE": 1,
                                                  "QUEEN_FLOW_POP_WAIT_MS": 5000})
    idle, busy = unique_name("adm-idle"), unique_name("adm-busy")
    parked = ParkedPop(broker, idle, timeout_ms=20000)
    parked.wait_parked()
    with broker.client() as c:
        assert c.push([{"queue": busy, "payload": {"n": 1}}]).status == 201
        assert len(c.pop_messages(busy, wait=False)) == 1
        poll_until(lambda: lane_value(c, "queen_flow_slots_in_use", "pop") == 0.0, timeout=10,
                   what="the Pop slot free while the long poll stays parked")
        assert parked.ended is None, "the long poll ended before anything was pushed to its queue"
        assert c.push([{"queue": idle, "payload": {"n": 1}}]).status == 201
    resp = parked.result(timeout=30)
    assert resp.status == 200, resp
