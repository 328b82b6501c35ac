"""Slow, silent, greedy and numerous clients against a real broker over raw sockets.

None of them may hold a handler thread or unbounded memory, or stop the broker from answering
others: each is cut at its deadline (HTTP_HEADER_TIMEOUT_MS, HTTP_BODY_TIMEOUT_MS,
HTTP_WRITE_TIMEOUT_MS) or turned away (HTTP_MAX_CONNECTIONS), and parked long polls hold no thread
(HTTP_MAX_THREADS is 4 here while hundreds of polls wait).
"""
import resource
import socket
import threading
import time

import pytest

from harness import closed_by_peer, poll_until

DEADLINE_MS = 800
ENV = {
    "HTTP_HEADER_TIMEOUT_MS": DEADLINE_MS,
    "HTTP_BODY_TIMEOUT_MS": DEADLINE_MS,
    "HTTP_WRITE_TIMEOUT_MS": DEADLINE_MS,
    "HTTP_KEEPALIVE_TIMEOUT_MS": DEADLINE_MS,
    "NUM_WORKERS": 2,
    "HTTP_MAX_THREADS": 4,
}
# The pause between the bytes of a slow client: the slowness is what these tests are about, so it
# is a fixed pace, not a wait for anything.
TRICKLE_PAUSE_S = 0.1
# How long the client that never reads stays silent before the test looks: well past the write
# deadline, so the broker must have given up on the connection by itself.
UNREAD_FOR_S = DEADLINE_MS / 1000 * 3


@pytest.fixture
def slow_broker(broker_factory):
    return broker_factory(env=ENV)


def connect(broker):
    sock = socket.create_connection(("127.0.0.1", broker.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def fetch(broker, path):
    """One GET on a connection of its own, read until the broker closes it."""
    sock = connect(broker)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    finally:
        sock.close()


def health_ms(broker):
    started = time.monotonic()
    data = fetch(broker, "/health")
    assert data.startswith(b"HTTP/1.1 200"), data[:200]
    return (time.monotonic() - started) * 1000.0


def test_a_header_sent_a_byte_at_a_time_is_cut_at_the_header_deadline(slow_broker):
    sock = connect(slow_broker)
    stop = threading.Event()

    def trickle():
        for byte in b"GET /health HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
            if stop.is_set():
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return
            time.sleep(TRICKLE_PAUSE_S)

    sender = threading.Thread(target=trickle, daemon=True)
    started = time.monotonic()
    sender.start()
    assert health_ms(slow_broker) < 1000  # others are served meanwhile
    assert closed_by_peer(sock, 5)
    stop.set()
    elapsed = time.monotonic() - started
    # Still trickling bytes, yet cut near the deadline: the deadline is for the whole head.
    assert DEADLINE_MS / 1000 * 0.8 <= elapsed < DEADLINE_MS / 1000 + 3
    sock.close()
    assert slow_broker.alive


def test_a_body_slower_than_its_content_length_is_cut_at_the_body_deadline(slow_broker):
    sock = connect(slow_broker)
    sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 5000\r\n\r\n{\"items\":[")
    started = time.monotonic()
    for _ in range(5):
        time.sleep(TRICKLE_PAUSE_S)
        try:
            sock.send(b" ")
        except OSError:
            break
    assert closed_by_peer(sock, 5)
    assert time.monotonic() - started < DEADLINE_MS / 1000 + 3
    assert health_ms(slow_broker) < 1000
    sock.close()


def test_a_client_that_never_reads_is_cut_at_the_write_deadline(slow_broker):
    # Pipelined requests whose answers (a few KB each) fill the socket buffers: the broker writes
    # one answer at a time, so an unread one blocks; the write deadline closes the connection.
    sock = connect(slow_broker)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = b"GET /metrics/prometheus HTTP/1.1\r\nHost: t\r\n\r\n"

    def flood():
        try:
            for _ in range(20000):
                sock.sendall(request)
        except OSError:
            pass

    sender = threading.Thread(target=flood, daemon=True)
    sender.start()
    time.sleep(UNREAD_FOR_S)  # read nothing
    assert health_ms(slow_broker) < 1000
    assert closed_by_peer(sock, 10), "an unread answer held the connection past the write deadline"
    sock.close()
    sender.join(timeout=10)
    assert slow_broker.alive


def test_thousands_of_idle_connections_cost_no_thread_and_are_closed(slow_broker):
    count = 3000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 512:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(hard, count + 512), hard), hard))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft >= count + 512, f"this test needs {count + 512} open files, the limit is {soft}"
    idle = [connect(slow_broker) for _ in range(count)]
    try:
        latencies = [health_ms(slow_broker) for _ in range(20)]
        assert max(latencies) < 1000, latencies
        threads = int(open(f"/proc/{slow_broker.pid}/status").read().split("Threads:")[1].split()[0])
        assert threads < 200, f"{threads} threads for {count} idle connections"
        # Each is closed at its header deadline; none is answered.
        for sock in idle:
            assert closed_by_peer(sock, 10)
    finally:
        for sock in idle:
            sock.close()
    assert health_ms(slow_broker) < 1000


def test_connections_past_the_limit_are_turned_away_with_503(broker_factory):
    broker = broker_factory(env={"HTTP_MAX_CONNECTIONS": 20})
    held = [connect(broker) for _ in range(20)]
    try:
        # No wait needed: the broker accepts one connection at a time in arrival order, so the 20 held
        # ones are counted before it accepts the next.
        extra = connect(broker)
        data = b""
        extra.settimeout(5)
        while True:
            chunk = extra.recv(65536)
            if not chunk:
                break
            data += chunk
        extra.close()
        assert data.startswith(b"HTTP/1.1 503"), data[:200]
        assert b"HTTP_MAX_CONNECTIONS" in data
    finally:
        for sock in held:
            sock.close()
    poll_until(lambda: _serves(broker), timeout=10, what="the broker serves again once connections close")


def _serves(broker):
    try:
        return health_ms(broker) < 5000
    except (AssertionError, OSError):
        return False


def test_hundreds_of_parked_long_polls_hold_no_handler_thread(slow_broker):
    # HTTP_MAX_THREADS=4, 400 long polls parked over 8 queues: /health and pushes still answer, a
    # push wakes a poll of its queue, and every poll ends (200 or 204 at its timeout).
    client = slow_broker.client()
    queues = [f"parked-{i}-{time.time_ns()}" for i in range(8)]
    for queue in queues:
        assert client.configure(queue).status in (200, 201)
    polls = []
    for i in range(400):
        sock = connect(slow_broker)
        sock.sendall(f"GET /api/v1/pop/queue/{queues[i % 8]}?wait=true&timeout=4000 HTTP/1.1\r\n"
                     f"Host: t\r\n\r\n".encode())
        polls.append((i % 8, sock))
    poll_until(lambda: _parked(slow_broker) >= 400, timeout=30, what="400 polls parked")
    assert health_ms(slow_broker) < 1000
    pushed = client.push([{"queue": queues[0], "partition": "p", "payload": {"n": 1}}])
    assert pushed.status in (200, 201)
    statuses = []
    for _, sock in polls:
        sock.settimeout(15)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, "a parked poll was closed without an answer"
            data += chunk
        statuses.append(int(data.split(b" ", 2)[1]))
        sock.close()
    assert statuses.count(200) == 1, statuses
    assert statuses.count(204) == 399
    assert slow_broker.alive


def _parked(broker):
    for line in fetch(broker, "/metrics/prometheus").decode(errors="replace").splitlines():
        if line.startswith("queen_parked_pops"):
            return int(float(line.split()[-1]))
    return -1
