"""The HA suite's own helpers (no broker, no database): the Python frame encoder must produce the
broker's bytes, and the parsers must read what they claim to read."""
import hashlib
import hmac

import pytest

from ha_support import (FRAME_HEARTBEAT, FRAME_POP_WAKE, FailoverClient, FailoverExhausted, MeshView, encode_frame,
                        pop_wake_body, prometheus_samples)

# encode_frame(make_pop_wake("orders", "p-1")) of src/mesh/frame.cpp with sender "queen-a", boot id
# 1700000000000, sequence 42, timestamp 1700000000123 and secret "change-me".
BROKER_POP_WAKE_HEX = (
    "00000050010207717565656e2d610000018bcfe56800000000000000002a0000018bcfe5687b00066f7264657273010003702d31"
    "7762516cd5f504ae47ba9714ed4e64c4ecee78152dee6f7ba372e898d7cbefe0")


def test_the_python_encoder_produces_the_brokers_bytes():
    frame = encode_frame("change-me", FRAME_POP_WAKE, "queen-a", 1700000000000, 42, 1700000000123,
                         pop_wake_body("orders", "p-1"))
    assert frame.hex() == BROKER_POP_WAKE_HEX


def test_a_frame_is_length_prefixed_and_sealed_over_everything_before_the_mac():
    frame = encode_frame("s3cret", FRAME_HEARTBEAT, "b", 1, 2, 3)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert frame[4:7] == bytes([1, FRAME_HEARTBEAT, 1])
    assert frame[-32:] == hmac.new(b"s3cret", frame[:-32], hashlib.sha256).digest()
    assert encode_frame("other", FRAME_HEARTBEAT, "b", 1, 2, 3)[-32:] != frame[-32:]


def test_pop_wake_body_without_partition_has_a_zero_flag():
    assert pop_wake_body("q") == b"\x00\x01q\x00"
    assert pop_wake_body("q", "p") == b"\x00\x01q\x01\x00\x01p"


def test_prometheus_samples_reads_names_labels_and_values():
    text = ('# HELP queen_mesh_frames_rejected_total x\n# TYPE queen_mesh_frames_rejected_total counter\n'
            'queen_mesh_frames_rejected_total{reason="bad_mac",peer="a"} 3\n'
            'queen_up 1\n')
    assert prometheus_samples(text) == [("queen_mesh_frames_rejected_total", {"reason": "bad_mac", "peer": "a"}, 3.0),
                                        ("queen_up", {}, 1.0)]


@pytest.mark.parametrize("state, links, alive", [
    ({"enabled": True, "peers": [{"address": "h:1", "connected": True}, {"address": "h:2", "connected": False}],
      "senders": [{"server_id": "b", "alive": True}, {"server_id": "c", "alive": False}]}, 1, {"b"}),
    ({"enabled": True, "server_id": "a", "peers": [], "senders": []}, 0, set()),
    ({"enabled": False}, 0, set()),
])
def test_mesh_view_reads_connected_links_and_live_senders(state, links, alive):
    view = MeshView({"status": "healthy", "shared_state": state})
    assert (view.enabled, view.connected_links, view.alive_senders) == (state["enabled"], links, alive)


class FakeResponse:
    def __init__(self, status):
        self.status = status


def test_failover_client_moves_to_the_next_broker_and_counts_it():
    client = FailoverClient(["a", "b"], preferred=0, rounds=2, pause=0)
    answers = {"a": ConnectionRefusedError(), "b": FakeResponse(201)}

    def operation(c):
        if isinstance(answers[c], Exception):
            raise answers[c]
        return answers[c]

    resp, index = client.call(operation)
    assert (resp.status, index, client.failovers) == (201, 1, 1)
    assert client.other_order(1) == [0, 1]
    answers["b"] = FakeResponse(503)
    with pytest.raises(FailoverExhausted):
        client.call(operation)
    assert client.failovers == 1
