"""Helpers of the HA suite: mesh frames forged from Python, mesh views of /health and
/metrics/prometheus, a client that fails over between brokers, and the SQL the suite reads.

Kept apart from the tests so each test reads as the scenario it checks. Everything here is
stdlib only, like tests/harness.
"""
import hashlib
import hmac
import http.client
import os
import re
import socket
import struct
import subprocess
import threading
import time

from harness import Deadline, closed_by_peer, poll_until

# Every mesh of the suite shares this QUEEN_SYNC_SECRET (conftest.mesh_factory).
MESH_SECRET = "ha-suite-shared-secret"

# --- mesh frames (src/mesh/frame.h, wire version 1) ---------------------------------------------

FRAME_VERSION = 1
MAC_BYTES = 32
FRAME_HEARTBEAT = 1
FRAME_POP_WAKE = 2


def str16(text):
    """A frame string field: u16 byte count, then the bytes."""
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def pop_wake_body(queue, partition=None):
    body = str16(queue) + bytes([1 if partition is not None else 0])
    return body + (str16(partition) if partition is not None else b"")


def encode_frame(secret, frame_type, sender_id, boot_id, sequence, timestamp_ms, body=b"",
                 version=FRAME_VERSION):
    """One sealed frame, laid out exactly as frame.h documents (big-endian integers):
    length | version | type | id length | id | boot id | sequence | timestamp | body | HMAC-SHA256.
    The MAC covers every byte before it, the length prefix included."""
    sender = sender_id.encode()
    head = bytes([version, frame_type, len(sender)]) + sender
    head += struct.pack(">QQQ", boot_id, sequence, timestamp_ms) + body
    signed = struct.pack(">I", len(head) + MAC_BYTES) + head
    mac = hmac.new(secret.encode(), signed, hashlib.sha256).digest()
    return signed + mac


class FrameSender:
    """A hand-made mesh peer: one TCP connection to a broker's mesh port."""

    def __init__(self, port, timeout=5.0, source_host=None):
        """source_host: the local address to connect from (any of 127.0.0.0/8 reaches the broker)."""
        source = (source_host, 0) if source_host else None
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=source)

    def send(self, data):
        self.sock.sendall(data)

    def closed_by_peer(self, timeout=3.0):
        """True once the broker closed this connection (recv sees EOF or a reset) within timeout."""
        return closed_by_peer(self.sock, timeout)

    def still_open(self, probe_seconds=0.5):
        """True when the broker has not closed the connection within probe_seconds."""
        return not self.closed_by_peer(timeout=probe_seconds)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def mesh_port(broker):
    """The QUEEN_MESH_PORT a broker was given (conftest.mesh_factory sets one per broker)."""
    return int(broker.extra_env["QUEEN_MESH_PORT"])


# --- what a broker says about its mesh ----------------------------------------------------------

class MeshView:
    """The mesh as one broker's /health `shared_state` describes it: `enabled`, `peers` (our outbound
    link per configured address: `address`, `connected`) and `senders` (remote brokers by the id
    their frames carry: `server_id`, `alive`)."""

    def __init__(self, health_body):
        body = health_body if isinstance(health_body, dict) else {}
        self.state = body.get("shared_state")
        state = self.state if isinstance(self.state, dict) else {}
        self.enabled = state.get("enabled") is True
        self.connected_links = sum(1 for peer in state.get("peers") or [] if peer.get("connected") is True)
        self.alive_senders = {sender.get("server_id") for sender in state.get("senders") or []
                              if sender.get("alive") is True}

    def __repr__(self):
        return f"<MeshView enabled={self.enabled} links={self.connected_links} alive={sorted(self.alive_senders)} " \
               f"state={self.state!r}>"


def mesh_view(broker):
    with broker.client(timeout=5) as c:
        resp = c.health()
    return MeshView(resp.body)


def wait_mesh_linked(brokers, timeout=20.0):
    """Wait until every broker has a connected link to each of its peers and hears every other
    broker's frames (the heartbeat marks a sender alive): only then is a wake frame delivered."""
    names = {b.name for b in brokers}

    def linked():
        views = {b.name: mesh_view(b) for b in brokers}
        for name, view in views.items():
            others = names - {name}
            if not (view.enabled and view.connected_links >= len(others) and others <= view.alive_senders):
                return None
        return views

    return poll_until(linked, timeout=timeout, interval=0.1, what="every broker linked to every peer over the mesh")


# --- Prometheus text ----------------------------------------------------------------------------

SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def prometheus_samples(text):
    """(name, {label: value}, float) for every sample line of an exposition text."""
    samples = []
    for line in (text or "").splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE_RE.match(line)
        if match:
            labels = dict(LABEL_RE.findall(match.group(2) or ""))
            samples.append((match.group(1), labels, float(match.group(3))))
    return samples


MESH_REJECTED_METRIC = "queen_mesh_frames_rejected_total"


def mesh_rejections(broker):
    """Rejected inbound mesh frames by reason (MeshNode's names: bad_mac, replayed, truncated, stale, ...),
    from the `queen_mesh_frames_rejected_total{reason=...}` counter of /metrics/prometheus."""
    with broker.client(timeout=5) as c:
        resp = c.prometheus()
    assert resp.status == 200, resp
    text = resp.body if isinstance(resp.body, str) else ""
    counts = {labels["reason"]: value for name, labels, value in prometheus_samples(text)
              if name == MESH_REJECTED_METRIC and "reason" in labels}
    assert counts, f"{MESH_REJECTED_METRIC} missing from /metrics/prometheus of {broker.name}"
    return counts


# --- a client behind a load balancer that retries on the other broker ---------------------------

RETRYABLE_ERRORS = (OSError, http.client.HTTPException)


class FailoverExhausted(RuntimeError):
    """Every broker failed the same request: the error a real client would have seen."""


class FailoverClient:
    """One connection per broker; a request goes to the preferred broker first and, on a
    connection error or a 5xx, to the next one, for at most `rounds` passes over the list.

    `failovers` counts requests that needed another broker, the evidence that a test really
    exercised an outage. One FailoverClient per thread."""

    def __init__(self, clients, preferred=0, rounds=3, pause=0.2):
        """pause: seconds between two passes over the brokers."""
        self.clients = list(clients)
        self.order = [(preferred + i) % len(self.clients) for i in range(len(self.clients))]
        self.rounds, self.pause = rounds, pause
        self.failovers = 0

    @classmethod
    def for_brokers(cls, brokers, preferred=0, timeout=10.0, **kw):
        return cls([b.client(timeout=timeout) for b in brokers], preferred=preferred, **kw)

    def call(self, operation, order=None):
        """operation(client) -> Response. Returns (Response, index of the broker that answered)."""
        last = None
        for round_number in range(self.rounds):
            for position, index in enumerate(order or self.order):
                try:
                    resp = operation(self.clients[index])
                except RETRYABLE_ERRORS as exc:
                    last = exc
                else:
                    if resp.status < 500:
                        if round_number or position:
                            self.failovers += 1
                        return resp, index
                    last = resp
            if round_number + 1 < self.rounds:
                time.sleep(self.pause)  # a retrying client's pause between rounds, not a wait for anything
        raise FailoverExhausted(f"every broker failed: last answer {last!r}")

    def other_order(self, index):
        """Broker order starting with the broker after `index` (ack where you did not pop)."""
        n = len(self.clients)
        return [(index + 1 + i) % n for i in range(n)]

    def close(self):
        for c in self.clients:
            c.close()


# --- a PostgreSQL session that holds a row lock -------------------------------------------------

class HeldPartitionLock:
    """A psql session holding FOR UPDATE on one partition row, the lock every push into that
    partition takes first (push_messages step 3). A timer fire into the partition then blocks
    after its claim committed, which is how a test makes a broker die while it holds claims."""

    READY = "queen-ha-lock-held"

    def __init__(self, pg, queue, partition):
        self.pg, self.queue, self.partition = pg, queue, partition
        self.proc = None

    def acquire(self, timeout=15.0):
        cmd = ["psql", "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-h", self.pg.host, "-p", str(self.pg.port),
               "-U", self.pg.user, "-d", self.pg.dbname, "-v", f"q={self.queue}", "-v", f"p={self.partition}"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=dict(os.environ, PGPASSWORD=self.pg.password))
        self.proc.stdin.write(LOCK_PARTITION_SQL + f"\\echo {self.READY}\n")
        self.proc.stdin.flush()
        # psql prints how many partition rows it locked, then the marker.
        deadline, output = Deadline(timeout), []
        while not deadline.expired():
            line = _readline_within(self.proc.stdout, deadline.remaining())
            if not line:
                break
            output.append(line.strip())
            if line.strip() == self.READY:
                break
        if output[-2:] != ["1", self.READY]:
            self.release()
            raise RuntimeError(f"could not lock partition {self.queue}/{self.partition}: {output}")
        return self

    def release(self):
        if self.proc is None:
            return
        try:
            self.proc.stdin.write("ROLLBACK;\n")
            self.proc.stdin.close()
            self.proc.wait(15)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def _readline_within(stream, timeout):
    result = {}
    reader = threading.Thread(target=lambda: result.setdefault("line", stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return result.get("line")


# --- SQL the suite reads (schema `queen`; tests/harness/schema.py holds the shared queries) ------

LOCK_PARTITION_SQL = """
BEGIN;
SELECT count(*) AS locked
  FROM (SELECT 1 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
         WHERE q.name = :'q' AND p.name = :'p' FOR UPDATE OF p) l;
"""


def timer_claims(pg, queue):
    """Pending timers of a queue with their claim: transaction_id, claimed_by, claim expiry (Unix us)."""
    return pg.query("""
        select transaction_id, claimed_by,
               (extract(epoch from claim_expires_at) * 1000000)::bigint as claim_expires_us
          from queen.timers where queue_name = :'queue'""", queue=queue)


def pending_timer_count(pg, queue):
    return pg.scalar("select count(*) as n from queen.timers where queue_name = :'queue'", queue=queue)


def lock_waiters(pg):
    """Backends of this database waiting on a lock (a fire blocked behind HeldPartitionLock)."""
    return pg.scalar("""
        select count(*) as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'""")


def stored_with_creation(pg, queue):
    """Every stored message of a queue: transaction_id and created_at (Unix us)."""
    return pg.query("""
        select m.transaction_id, (extract(epoch from m.created_at) * 1000000)::bigint as created_us
          from queen.stored_messages m
          join queen.partitions p on p.id = m.partition_id
          join queen.queues q on q.id = p.queue_id
         where q.name = :'queue'""", queue=queue)


def job_runs_of(pg, server_ids):
    """queen.job_runs rows written by the given brokers: job, cycle, server_id, started_at (Unix ms)."""
    names = "{" + ",".join('"' + s + '"' for s in server_ids) + "}"
    return pg.query("""
        select job, cycle, server_id, (extract(epoch from started_at) * 1000)::float8 as started_ms
          from queen.job_runs where server_id = any(:'names'::text[])""", names=names)


def kv_row_count(pg, key):
    return pg.scalar("select count(*) as n from queen.kv where key = :'key'", key=key)


def database_now_ms(pg):
    return pg.scalar("select (extract(epoch from clock_timestamp()) * 1000)::float8 as now_ms")
