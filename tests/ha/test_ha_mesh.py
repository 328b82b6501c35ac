"""The mesh between brokers (docs/operations-ha.md, "The mesh port is a control surface"): pop wakes cross brokers while
the mesh is up, the periodic floor still answers when it is cut, and the mesh port refuses forged,
replayed, stale and truncated frames without disturbing the broker."""
import subprocess
import time
import uuid

import pytest

from ha_support import (FRAME_HEARTBEAT, FRAME_POP_WAKE, MESH_SECRET, FrameSender, encode_frame, mesh_port,
                        mesh_rejections, mesh_view, pop_wake_body, wait_mesh_linked)
from harness import Broker, ParkedPop, free_port, is_listening, poll_until, unique_name

# The long-poll re-check floor is set long so that a pop answered well before it was woken.
FLOOR_MS = 5000
FLOOR_ENV = {"POP_WAIT_INITIAL_INTERVAL_MS": FLOOR_MS, "POP_WAIT_MAX_INTERVAL_MS": FLOOR_MS}
PARK_TIMEOUT_MS = 15000
# After the rejections are counted, a frame counted twice would show up within this window. It is
# not a wait for anything: the check is that nothing more is counted.
NO_RECOUNT_WINDOW_S = 0.5
BOOT_REFUSAL_TIMEOUT_S = 15


def push_on_one_and_time_the_pop_on_the_other(pusher, parked_on):
    """Park a pop on `parked_on`, push one message on `pusher`; returns (seconds from push to answer,
    seconds from park to answer, seconds from park to push). Asserts the pop got exactly that message."""
    queue = unique_name("ha-wake")
    pop = ParkedPop(parked_on, queue, timeout_ms=PARK_TIMEOUT_MS).wait_parked()
    assert pop.ended is None, f"the pop returned before anything was pushed: {pop.response or pop.error}"
    with pusher.client() as c:
        pushed = c.push_one(queue, {"woken": True}, transaction_id="wake-1")
    pushed_at = time.monotonic()
    assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
    resp = pop.result(timeout=PARK_TIMEOUT_MS / 1000 + 10)
    assert resp.status == 200, resp
    assert [m["data"] for m in resp.body["messages"]] == [{"woken": True}]
    return pop.ended - pushed_at, pop.ended - pop.started, pushed_at - pop.started


def test_a_push_on_one_broker_wakes_a_long_poll_parked_on_the_other(mesh_factory):
    a, b = mesh_factory(2, env=FLOOR_ENV)
    wait_mesh_linked([a, b])
    woke_after_push, _, _ = push_on_one_and_time_the_pop_on_the_other(pusher=a, parked_on=b)
    # The floor would answer FLOOR_MS after parking; only a mesh wake answers this fast.
    assert woke_after_push < 2.0, f"the pop on B answered {woke_after_push:.2f}s after the push on A"


def test_with_the_mesh_cut_a_parked_long_poll_still_returns_at_the_floor(mesh_factory):
    # A's only peer is a port nobody listens on: A drops every frame, B never hears from A.
    closed_port = free_port()
    a, b = mesh_factory(2, env=FLOOR_ENV,
                        per_broker_env=[{"QUEEN_MESH_PEERS": f"127.0.0.1:{closed_port}"}, None])
    assert not is_listening(closed_port)
    # The rest of the mesh works (B's frames reach A), so what follows measures the cut alone.
    poll_until(lambda: b.name in mesh_view(a).alive_senders, timeout=20, what="A hearing B over the mesh")
    assert a.name not in mesh_view(b).alive_senders, "B hears A although A's only peer is a closed port"
    woke_after_push, since_park, park_to_push = push_on_one_and_time_the_pop_on_the_other(pusher=a, parked_on=b)
    floor_s = FLOOR_MS / 1000
    assert woke_after_push > floor_s - park_to_push - 1.5, \
        f"answered {woke_after_push:.2f}s after the push although no wake could reach B"
    assert floor_s - 1.0 <= since_park <= floor_s + 3.0, \
        f"a pop parked with a {floor_s:.0f}s floor answered after {since_park:.2f}s"


def test_forged_replayed_stale_and_truncated_frames_are_rejected_and_counted(mesh_factory):
    a, b = mesh_factory(2)
    wait_mesh_linked([a, b])
    before = mesh_rejections(a)
    intruder = f"ha-intruder-{uuid.uuid4().hex[:8]}"
    boot_id = int(time.time() * 1000)

    def frame(sequence, secret=MESH_SECRET, timestamp_ms=None, frame_type=FRAME_HEARTBEAT, body=b""):
        stamp = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
        return encode_frame(secret, frame_type, intruder, boot_id, sequence, stamp, body)

    with FrameSender(mesh_port(a)) as peer:
        valid = frame(1)
        peer.send(valid)
        peer.send(valid)  # the same bytes again: a replay
        peer.send(frame(2, timestamp_ms=int(time.time() * 1000) - 10 * 60 * 1000))  # outside the skew window
        # Replayed and stale frames are only dropped: the connection of a real peer survives them.
        assert peer.still_open(), "a replayed or stale frame closed the connection"
        peer.send(frame(3, frame_type=FRAME_POP_WAKE, body=pop_wake_body(unique_name("ha-legit"))))
        assert peer.still_open(), "a valid frame after a replay closed the connection"

    with FrameSender(mesh_port(a)) as forger:
        forger.send(frame(4, secret="not-the-" + MESH_SECRET))
        assert forger.closed_by_peer(), "a forged frame did not close the connection"

    with FrameSender(mesh_port(a)) as cut_short:
        whole = frame(5)
        cut_short.send(whole[:len(whole) // 2])
    # (closing in the middle of a frame is the truncation)

    expected = {"replayed": 1, "stale": 1, "bad_mac": 1, "truncated": 1}

    def deltas():
        now = mesh_rejections(a)
        return {reason: now.get(reason, 0) - before.get(reason, 0) for reason in expected}

    poll_until(lambda: all(deltas()[r] >= n for r, n in expected.items()), timeout=10,
               what="mesh rejections counted on A")
    time.sleep(NO_RECOUNT_WINDOW_S)  # nothing may be counted twice
    assert deltas() == expected

    # The broker keeps serving, and its real peer is still heard.
    queue = unique_name("ha-after-abuse")
    with a.client() as ca, b.client() as cb:
        assert ca.health().status == 200
        assert ca.push_one(queue, {"n": 1}, transaction_id="after-1").status == 201
        assert [m["data"] for m in cb.pop_messages(queue, batch=5)] == [{"n": 1}]
    wait_mesh_linked([a, b], timeout=10)


def test_a_holder_of_the_secret_connecting_from_outside_the_peer_list_is_refused(mesh_factory):
    """The peers are 127.0.0.1:<port>: a connection from 127.0.0.2 with a perfectly valid frame is closed
    before any frame is read, and counted as unknown_peer; the real peers keep their link."""
    a, b = mesh_factory(2)
    wait_mesh_linked([a, b])
    before = mesh_rejections(a).get("unknown_peer", 0)
    frame = encode_frame(MESH_SECRET, FRAME_HEARTBEAT, f"ha-stranger-{uuid.uuid4().hex[:8]}",
                         int(time.time() * 1000), 1, int(time.time() * 1000), b"")
    with FrameSender(mesh_port(a), source_host="127.0.0.2") as stranger:
        try:
            stranger.send(frame)
        except OSError:
            pass  # the broker may already have closed it: that is the point
        assert stranger.closed_by_peer(), "a connection from outside QUEEN_MESH_PEERS stayed open"
    poll_until(lambda: mesh_rejections(a).get("unknown_peer", 0) == before + 1, timeout=10,
               what="the stranger counted as unknown_peer on A")
    senders = mesh_view(a).alive_senders
    assert not any(sid.startswith("ha-stranger-") for sid in senders), senders
    wait_mesh_linked([a, b], timeout=10)


def test_a_broker_with_peers_and_no_secret_refuses_to_boot(ha_db):
    broker = Broker(pg=ha_db, name=unique_name("ha-nosecret")[:20],
                    env={"QUEEN_MESH_PORT": free_port(), "QUEEN_MESH_PEERS": f"127.0.0.1:{free_port()}",
                         "QUEEN_SYNC_SECRET": None})
    try:
        broker.start(wait=False)
        try:
            code = broker.proc.wait(BOOT_REFUSAL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"a broker with mesh peers and no QUEEN_SYNC_SECRET still runs after "
                        f"{BOOT_REFUSAL_TIMEOUT_S}s:\n{broker.log_tail()}")
        assert code != 0, "a broker with mesh peers and no QUEEN_SYNC_SECRET exited 0"
        assert "QUEEN_SYNC_SECRET" in broker.log_text(), broker.log_tail()
    finally:
        broker.kill()


def test_a_broker_without_peers_binds_no_mesh_port(ha_db):
    port = free_port()
    broker = Broker(pg=ha_db, name=unique_name("ha-solo")[:16],
                    env={"QUEEN_MESH_PORT": port, "QUEEN_MESH_PEERS": None, "QUEEN_SYNC_SECRET": MESH_SECRET})
    try:
        broker.start()
        assert not is_listening(port), "a broker with no peers bound its mesh port"
        state = mesh_view(broker).state
        assert isinstance(state, dict) and state.get("enabled") is False, state
    finally:
        broker.stop()


def test_health_shared_state_follows_a_peer_going_down_and_coming_back(mesh_factory):
    a, b = mesh_factory(2)
    wait_mesh_linked([a, b])
    b.kill()

    def a_sees_b_gone():
        view = mesh_view(a)
        return view.enabled and b.name not in view.alive_senders and view.connected_links == 0

    # The dead threshold (5 s by default) plus heartbeat slack.
    poll_until(a_sees_b_gone, timeout=15, what=f"A's shared_state reporting {b.name} down")
    b.start()
    wait_mesh_linked([a, b])
