"""The transport's bounds against real brokers (docs/limits.md "Connections and the transport", docs/auth.md):
with JWT on, a request is refused from its head, before its body is read; the body bytes of all requests together
are bounded by HTTP_MAX_BODY_BYTES_IN_FLIGHT (503 past it); a token with a repeated claim is refused; a path that is
not UTF-8 once decoded is a 400 on every route; the mesh listens on HOST (or QUEEN_MESH_HOST), not on 0.0.0.0;
CORS answers only the origins HTTP_CORS_ORIGINS lists."""
import hashlib
import hmac
import json
import socket
import time

import pytest

from auth_support import SECRET, b64url, bearer, hs256
from harness import BackgroundWorker, Broker, free_port, unique_name
from harness.assertions import assert_json_error, assert_no_content, assert_no_cors
from harness.process import measured_bounds_apply, status_bytes
from harness.waiting import Deadline, poll_until, run_workers

MIB = 1 << 20
BODY_BYTES = 64 * MIB            # MAX_BODY_BYTES, the default
BUDGET_BYTES = 256 * MIB         # HTTP_MAX_BODY_BYTES_IN_FLIGHT, the default
RSS_BOUND_BYTES = 300 * MIB      # the documented bound for these floods (docs/limits.md)
ANSWER_WITHIN_S = 5.0            # "quickly": the refusal comes from the head, whatever the box's load
JWT_ENV = {"JWT_ENABLED": "true", "JWT_SECRET": SECRET}


class RssSampler:
    """The broker's resident memory sampled every 20 ms while a flood runs, and its high-water mark after."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = 0
        self.worker = BackgroundWorker(self._run, name="rss-sampler")

    def _run(self, stop):
        while not stop.wait(0.02):
            self.peak = max(self.peak, status_bytes(self.pid, "VmRSS"))

    def __enter__(self):
        self.worker.start()
        return self

    def __exit__(self, *exc):
        self.worker.stop()


def head(method, path, length, token=None, extra=""):
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"{method} {path} HTTP/1.1\r\nHost: queen\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def read_answer(sock, timeout):
    """The bytes of one answer (up to the end of its declared body), or what came before the deadline."""
    data = b""
    deadline = Deadline(timeout)
    while not deadline.expired():
        sock.settimeout(max(deadline.remaining(), 0.01))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
        end = data.find(b"\r\n\r\n")
        if end >= 0:
            headers = data[:end].decode("latin-1").lower()
            length = next((int(line.split(":", 1)[1]) for line in headers.split("\r\n")
                           if line.startswith("content-length:")), 0)
            if len(data) >= end + 4 + length:
                break
    return data


def status_of(answer):
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None


def send_body(sock, total, first=b""):
    """Send `first` then spaces up to `total` bytes, 1 MiB at a time; False when the broker closed first."""
    chunk = b" " * MIB
    try:
        sock.sendall(first)
        left = total - len(first)
        while left > 0:
            sock.sendall(chunk[:min(left, MIB)])
            left -= min(left, MIB)
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False


def body_bytes_in_flight(client):
    return client.gauges()["queen_http_request_body_bytes_in_flight"]


@pytest.fixture(scope="module")
def jwt_broker(pg):
    instance = Broker(pg=pg, name="it-transport-jwt", env=JWT_ENV).start()
    yield instance
    instance.stop()


def test_sixty_anonymous_64_mib_bodies_are_refused_from_their_heads(jwt_broker):
    """Issue 20, item 2: each anonymous sender sees its 401 before it has sent a byte of its body, then sends
    the 64 MiB anyway; the broker drops them unread and its RSS stays under the bound."""
    senders = 60

    def anonymous(index):
        with socket.create_connection(("127.0.0.1", jwt_broker.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(head("POST", "/api/v1/push", BODY_BYTES))
            answer = read_answer(sock, ANSWER_WITHIN_S)
            elapsed = time.monotonic() - started
            assert status_of(answer) == 401, answer[:300]
            assert b"Authentication required" in answer and b"Connection: close" in answer, answer[:300]
            sent_whole_body = send_body(sock, BODY_BYTES)
            return elapsed, sent_whole_body

    with jwt_broker.client() as client, RssSampler(jwt_broker.pid) as rss:
        results = run_workers(senders, anonymous, timeout=240, name="anonymous")
        assert body_bytes_in_flight(client) == 0  # nothing was ever reserved for them
    slowest = max(elapsed for elapsed, _ in results)
    high_water = status_bytes(jwt_broker.pid, "VmHWM")
    print(f"anonymous: {senders} x 64 MiB, slowest 401 {slowest * 1000:.0f} ms, "
          f"{sum(1 for _, whole in results if whole)} bodies sent whole and dropped, "
          f"peak VmRSS {rss.peak / MIB:.0f} MiB, VmHWM {high_water / MIB:.0f} MiB")
    assert slowest < ANSWER_WITHIN_S
    # The broker lingers on a refused connection, dropping what the client still sends, so a client that
    # writes its whole body before reading (most do) still gets its answer.
    assert all(whole for _, whole in results)
    assert high_water < RSS_BOUND_BYTES or not measured_bounds_apply(), f"VmHWM {high_water / MIB:.0f} MiB"


def test_bodies_past_the_bytes_in_flight_are_503_and_nothing_accepted_is_lost(jwt_broker):
    """Four authenticated 64 MiB bodies fill the 256 MiB budget; four more get 503 with Retry-After before their
    bodies are read; a held body completed is stored, abandoned ones give their bytes back, and the next push is
    stored too."""
    queue = unique_name("inflight")
    token = hs256(role="read-write")
    prefix = json.dumps({"items": [{"queue": queue, "transactionId": "whole-64-mib", "payload": {"n": 0}}]})
    prefix = prefix[:-1].encode()  # the closing brace comes after the padding

    with jwt_broker.client() as client, RssSampler(jwt_broker.pid) as rss:
        client.default_headers.update(bearer(token))
        holders = [socket.create_connection(("127.0.0.1", jwt_broker.port), timeout=30) for _ in range(4)]
        try:
            for sock in holders:
                sock.sendall(head("POST", "/api/v1/push", BODY_BYTES, token) + prefix)
            poll_until(lambda: body_bytes_in_flight(client) == BUDGET_BYTES, timeout=10,
                       what="four 64 MiB reservations")

            def beyond(index):
                with socket.create_connection(("127.0.0.1", jwt_broker.port), timeout=10) as sock:
                    sock.sendall(head("POST", "/api/v1/push", BODY_BYTES, token))
                    return read_answer(sock, ANSWER_WITHIN_S)

            for answer in run_workers(4, beyond, timeout=60, name="beyond"):
                assert status_of(answer) == 503, answer[:300]
                assert b"(HTTP_MAX_BODY_BYTES_IN_FLIGHT)" in answer and b"Retry-After: 1\r\n" in answer, answer
            assert body_bytes_in_flight(client) == BUDGET_BYTES

            # The first holder completes a valid 64 MiB push (whitespace before the closing brace).
            assert send_body(holders[0], BODY_BYTES - len(prefix) - 1, b"")
            holders[0].sendall(b"}")
            answer = read_answer(holders[0], 60)
            assert status_of(answer) == 201, answer[:300]
            assert json.loads(answer.split(b"\r\n\r\n", 1)[1])[0]["status"] == "queued", answer[:300]
        finally:
            for sock in holders:
                sock.close()  # the three others abandon their bodies half-way
        poll_until(lambda: body_bytes_in_flight(client) == 0, timeout=10, what="every reservation returned")

        after = client.push_one(queue, {"n": 1}, transaction_id="after-the-flood")
        assert after.status == 201 and after.body[0]["status"] == "queued", after
        stored = client.drain(queue, 2, timeout=10)
        assert sorted(m["transactionId"] for m in stored) == ["after-the-flood", "whole-64-mib"]
    high_water = status_bytes(jwt_broker.pid, "VmHWM")
    print(f"in flight: peak VmRSS {rss.peak / MIB:.0f} MiB, VmHWM {high_water / MIB:.0f} MiB")
    assert high_water < RSS_BOUND_BYTES or not measured_bounds_apply(), f"VmHWM {high_water / MIB:.0f} MiB"


def token_with_raw_payload(payload_text):
    """An HS256 token over payload text as given: PyJWT cannot write a JSON object with a repeated member."""
    signing_input = b64url(b'{"alg":"HS256","typ":"JWT"}') + "." + b64url(payload_text.encode())
    mac = hmac.new(SECRET.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


def test_a_token_repeating_a_claim_is_refused(jwt_broker):
    exp = int(time.time()) + 600
    with jwt_broker.client() as client:
        repeated = token_with_raw_payload(f'{{"role":"read-only","role":"admin","exp":{exp}}}')
        resp = client.get("/api/v1/system/maintenance", headers=bearer(repeated))
        assert_json_error(resp, 401, 'Invalid token: the payload repeats the member "role"')
        # The same claims once each: accepted (the refusal is the repetition, not the token).
        single = token_with_raw_payload(f'{{"role":"admin","exp":{exp}}}')
        assert client.get("/api/v1/system/maintenance", headers=bearer(single)).status == 200


BAD_UTF8_REQUESTS = [
    ("DELETE", "/api/v1/messages/%C0%AF/x"),
    ("GET", "/api/v1/messages/%C0%AF/x"),
    ("GET", "/api/v1/resources/queues/%C0%AF"),
    ("GET", "/api/v1/pop/queue/%FF%FE?wait=false"),
    ("PUT", "/api/v1/kv/%ED%A0%80"),
    ("GET", "/api/v1/no-such-route/%C0%AF"),
    ("GET", "/api/v1/messages?queue=%C0%AF"),
]


@pytest.mark.parametrize("method,path", BAD_UTF8_REQUESTS)
def test_a_path_that_is_not_utf8_is_a_400_on_every_route(client, method, path):
    resp = client.request(method, path, timeout=5)
    assert resp.status == 400, resp
    assert resp.body["error"] in ("Request path must be valid UTF-8 once percent-decoded",
                                  "Query string must be valid UTF-8 once percent-decoded"), resp.body
    assert_no_cors(resp)


def test_a_path_that_is_not_utf8_is_a_400_before_authentication_too(jwt_broker):
    with jwt_broker.client() as client:
        assert_json_error(client.request("DELETE", "/api/v1/messages/%C0%AF/x"), 400,
                          "Request path must be valid UTF-8 once percent-decoded")


def listening_addresses(port):
    """The IPv4 addresses with a socket listening on `port`, from /proc/net/tcp."""
    found = set()
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            fields = line.split()
            address, local_port = fields[1].split(":")
            if int(local_port, 16) == port and fields[3] == "0A":  # TCP_LISTEN
                found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def mesh_env(mesh_port):
    return {"QUEEN_MESH_PORT": str(mesh_port), "QUEEN_MESH_PEERS": f"127.0.0.1:{free_port()}",
            "QUEEN_SYNC_SECRET": "transport-mesh-secret-0123456789"}


def test_the_mesh_listens_on_host(pg):
    mesh_port = free_port()
    broker = Broker(pg=pg, name="it-transport-mesh-host", env={"HOST": "127.0.0.2", **mesh_env(mesh_port)})
    try:
        broker.start(wait=False)  # the harness probes 127.0.0.1; this broker answers on 127.0.0.2 only
        poll_until(lambda: listening_addresses(broker.port) == {"127.0.0.2"}, timeout=30, what="the HTTP listener")
        assert listening_addresses(mesh_port) == {"127.0.0.2"}
        broker.wait_for_log(f"listening on 127.0.0.2:{mesh_port}", timeout=10)
    finally:
        broker.stop()


def test_queen_mesh_host_moves_the_mesh_alone(pg):
    mesh_port = free_port()
    broker = Broker(pg=pg, name="it-transport-mesh-own-host", env={"QUEEN_MESH_HOST": "127.0.0.3",
                                                                   **mesh_env(mesh_port)})
    try:
        broker.start()
        assert listening_addresses(broker.port) == {"127.0.0.1"}
        assert listening_addresses(mesh_port) == {"127.0.0.3"}
    finally:
        broker.stop()


def test_cors_answers_listed_origins_only(pg):
    origin = "http://127.0.0.1:9"
    broker = Broker(pg=pg, name="it-transport-cors", env={"HTTP_CORS_ORIGINS": f"{origin}, https://app.test"}).start()
    try:
        with broker.client() as client:
            preflight = client.options("/api/v1/resources/queues/x", headers={
                "Origin": origin, "Access-Control-Request-Method": "DELETE"}, timeout=5)
            assert_no_content(preflight)
            assert preflight.header("access-control-allow-origin") == origin
            assert "DELETE" in preflight.header("access-control-allow-methods")
            assert "Authorization" in preflight.header("access-control-allow-headers")
            assert preflight.header("vary") == "Origin"
            listed = client.get("/health", headers={"Origin": "https://app.test"})
            assert listed.header("access-control-allow-origin") == "https://app.test"
            assert listed.header("access-control-allow-methods") is None  # only preflights get those
            for other in ("http://127.0.0.1:10", "https://app.test.evil", "null"):
                resp = client.options("/api/v1/push", headers={"Origin": other,
                                                               "Access-Control-Request-Method": "POST"}, timeout=5)
                assert_no_content(resp)
                assert_no_cors(resp)
                assert resp.header("vary") == "Origin"
    finally:
        broker.stop()


def test_a_bad_cors_origin_stops_the_boot(pg):
    broker = Broker(pg=pg, name="it-transport-cors-bad", env={"HTTP_CORS_ORIGINS": "https://app.test/path"})
    broker.start(wait=False)
    poll_until(lambda: not broker.alive, timeout=30, what="the broker to refuse its configuration")
    assert broker.returncode == 2
    assert "HTTP_CORS_ORIGINS entry 'https://app.test/path' is not an origin" in broker.log_text()
