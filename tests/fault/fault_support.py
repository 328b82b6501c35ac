"""Helpers shared by the fault tests: sequential producers, spool inspection, spool-file crafting,
and the broker's spool observability (Prometheus gauges, /status/buffers, /system/maintenance).

Everything here follows the documented spool behaviour (docs/operations-spool.md) and the wire shapes of
the status and maintenance routes: the tests assert against those, not against the code.
"""
import contextlib
import json
import os
import re
import struct
import threading
import time
import zlib

from harness import BackgroundWorker, Deadline, attempts, poll_until
from harness.httpclient import Response

# Spool file names (src/spool/file_names.h): <13-digit epoch ms>-<8-digit sequence>.<ext>.
FINALIZED_EXTENSION = ".buf"
QUARANTINE_DIR = "failed"
SPOOL_FILE_RE = re.compile(r"^\d{13}-\d{8}\.(tmp|buf)$")

# Spool gauges that must always be exported (docs/operations-spool.md, "What to watch"), even with the database down.
SPOOL_GAUGES = ("queen_file_buffer_pending", "queen_file_buffer_failed", "queen_file_buffer_db_healthy",
                "queen_maintenance_mode_enabled")

# A push answer during an outage must be quick: the broker fails over to the spool instead of waiting.
PUSH_TIMEOUT_S = 30.0
# Pause after a request error (broker restarting) so a producer does not spin on refused connections.
ERROR_BACKOFF_S = 0.05
# How often wait_for_status() reads the ledger (in memory: a fixed, short pace costs nothing).
POLL_INTERVAL_S = 0.05


# --- producers -------------------------------------------------------------------------------
class TokenBucket:
    """Items per second shared by producers: take(n) waits until n tokens are there.

    Tokens accrue at `rate_per_s` up to `burst`, so a producer that was held up (a slow push)
    resumes at the rate instead of catching up in one burst. The wait is pacing, on the
    producer's own stop event: stopping the producer ends it at once.
    """

    def __init__(self, rate_per_s, burst):
        assert rate_per_s > 0 and burst > 0, (rate_per_s, burst)
        self.rate_per_s, self.burst = float(rate_per_s), float(burst)
        self._tokens = float(burst)
        self._refilled = time.monotonic()
        self._lock = threading.Lock()

    def _reserve(self, count):
        """Take `count` tokens now, even into debt; returns the seconds until that debt is paid."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._refilled) * self.rate_per_s)
            self._refilled = now
            self._tokens -= count
            return max(0.0, -self._tokens / self.rate_per_s)

    def take(self, count, stop):
        """Wait until `count` items may be sent; False when `stop` was set meanwhile."""
        owed_s = self._reserve(count)
        return not stop.wait(owed_s) if owed_s > 0 else not stop.is_set()


class Producer:
    """One sequential producer: one ledger stream, pushing `batch` items per request to `queue`,
    cycling through `partitions`, in a background thread, until stopped or a bound is reached.

    Items carry transactionId "<stream>-<n>" (n counts items of this producer from 0), so the
    ledger can tell every item apart. Request errors are recorded as `unknown` outcomes.
    With a `pacer` (a TokenBucket, possibly shared), each request first takes its items' tokens.
    """

    def __init__(self, broker, ledger, queue, stream, partitions=("p0", "p1"), batch=5, max_items=5000,
                 seconds=150.0, pacer=None):
        self.broker, self.ledger, self.queue, self.stream = broker, ledger, queue, stream
        self.partitions, self.batch, self.max_items = tuple(partitions), batch, max_items
        self.seconds, self.pacer = seconds, pacer
        self.sent = 0
        self._worker = BackgroundWorker(self._run, name=f"producer-{stream}")

    def items(self, first, count):
        return [{"queue": self.queue, "partition": self.partitions[n % len(self.partitions)],
                 "transactionId": f"{self.stream}-{n}",
                 "payload": {"stream": self.stream, "n": n}}
                for n in range(first, first + count)]

    def _run(self, stop):
        deadline = Deadline(self.seconds)
        with self.broker.client(retry_stale=False) as client:
            while not stop.is_set() and not deadline.expired() and self.sent < self.max_items:
                items = self.items(self.sent, min(self.batch, self.max_items - self.sent))
                if self.pacer is not None and not self.pacer.take(len(items), stop):
                    break
                self.sent += len(items)
                try:
                    response = client.push(items, timeout=PUSH_TIMEOUT_S)
                except OSError as exc:
                    self.ledger.record_push(self.stream, items, error=exc)
                    stop.wait(ERROR_BACKOFF_S)
                    continue
                self.ledger.record_push(self.stream, items, response=response)
        return self.sent

    def run(self):
        """Push in the calling thread until max_items (or the time bound); returns the items sent."""
        return self._run(threading.Event())

    def start(self):
        self._worker.start()
        return self

    def stop(self):
        return self._worker.stop(timeout=PUSH_TIMEOUT_S + 10)


def stop_all(producers):
    """Stop every producer, then re-raise the first failure (so one failure does not leave threads running)."""
    errors = []
    for producer in producers:
        try:
            producer.stop()
        except Exception as exc:  # collected: all producers must be stopped before raising
            errors.append(exc)
    if errors:
        raise errors[0]


@contextlib.contextmanager
def running(producers):
    """Start the producers; stop them all when the block ends. A failure inside the block wins over
    a producer failure, which is then only a consequence."""
    for producer in producers:
        producer.start()
    try:
        yield producers
    except BaseException:
        try:
            stop_all(producers)
        except Exception:
            pass
        raise
    stop_all(producers)


def wait_for_status(ledger, status, at_least, timeout, what, forbidden=("failed",)):
    """Wait until the ledger recorded `at_least` items with `status`; returns the status counts.

    Fails at once (not at the deadline) when an item was answered with a `forbidden` status.
    """
    for _ in attempts(timeout, interval=POLL_INTERVAL_S, max_interval=POLL_INTERVAL_S):
        counts = ledger.status_counts()
        unexpected = {s: counts[s] for s in forbidden if counts.get(s)}
        assert not unexpected, f"{what}: items answered {unexpected} (all counts {counts})"
        if counts.get(status, 0) >= at_least:
            return counts
    raise TimeoutError(f"{what}: not {at_least} items {status} within {timeout:.0f}s (counts {counts})")


def record_spooled(ledger, stream, items):
    """Record hand-written spool events in the ledger as `buffered`: the spool holds them, so the
    broker owes them to the database exactly as if a push had been answered `buffered`."""
    body = [{"status": "buffered", "transactionId": i["transactionId"], "queue": i["queue"]} for i in items]
    ledger.record_push(stream, items, response=Response(201, {}, body, b"", 0.0))


# --- observability ---------------------------------------------------------------------------
def spool_gauges(client):
    """The four always-present spool gauges; an AssertionError names any that is missing."""
    values = client.gauges()
    missing = [g for g in SPOOL_GAUGES if g not in values]
    assert not missing, f"spool gauges missing from /metrics/prometheus: {missing}"
    return {g: values[g] for g in SPOOL_GAUGES}


def buffer_status(client):
    """GET /api/v1/status/buffers, shape-checked."""
    resp = client.get("/api/v1/status/buffers")
    assert resp.status == 200, resp
    body = resp.body
    assert {"pending", "failed", "dbHealthy", "database"} <= set(body), body
    assert {"reachable", "latencyMs"} <= set(body["database"]) or "error" in body["database"], body
    return body


def wait_buffer_status(client, predicate, timeout, what):
    """Poll /status/buffers until predicate(body) holds; returns that body."""
    def check():
        body = buffer_status(client)
        return body if predicate(body) else None
    return poll_until(check, timeout=timeout, what=what)


def maintenance_status(client):
    """GET /api/v1/system/maintenance, shape-checked."""
    resp = client.maintenance()
    assert resp.status == 200, resp
    body = resp.body
    assert {"maintenanceMode", "bufferedMessages", "bufferStats"} <= set(body), body
    stats = body["bufferStats"]
    assert {"pendingCount", "failedCount", "dbHealthy", "files", "bytes", "failedFiles"} <= set(stats), stats
    assert {"count", "totalBytes", "totalMB"} <= set(stats["failedFiles"]), stats
    return body


# --- the spool directory ---------------------------------------------------------------------
def spool_files(spool_dir):
    """{name: size} of the spool files in the top directory (what the drain lists)."""
    found = {}
    for name in os.listdir(spool_dir):
        path = os.path.join(spool_dir, name)
        if SPOOL_FILE_RE.match(name) and os.path.isfile(path):
            found[name] = os.path.getsize(path)
    return found


def quarantined_files(spool_dir):
    """{name: size} of the files in <spool>/failed/ ({} when the directory does not exist)."""
    quarantine = os.path.join(spool_dir, QUARANTINE_DIR)
    if not os.path.isdir(quarantine):
        return {}
    return {name: os.path.getsize(os.path.join(quarantine, name)) for name in os.listdir(quarantine)}


def spool_is_empty(client, spool_dir):
    """True when the broker reports nothing pending and no spool file holds a byte.

    An empty active file may exist (the writer can open one ahead of time); a finalized one may not.
    """
    status = buffer_status(client)
    maintenance = maintenance_status(client)
    files = spool_files(spool_dir)
    finalized = [n for n in files if n.endswith(FINALIZED_EXTENSION)]
    return (status["pending"] == 0 and maintenance["bufferedMessages"] == 0 and not finalized
            and sum(files.values()) == 0)


def wait_spool_empty(client, spool_dir, timeout=60.0):
    def check():
        return spool_is_empty(client, spool_dir)
    try:
        poll_until(check, timeout=timeout, what="the spool drained")
    except TimeoutError:
        raise AssertionError(f"spool not empty after {timeout:.0f}s: status={buffer_status(client)} "
                             f"files={spool_files(spool_dir)}") from None


def assert_recovered(broker, timeout):
    """After an outage: the spool is empty, /status/buffers and the gauges say the database is healthy
    and reachable, nothing is pending and nothing was quarantined."""
    with broker.client() as client:
        wait_spool_empty(client, broker.spool_dir, timeout=timeout)
        healthy = wait_buffer_status(client, lambda s: s["dbHealthy"] is True, timeout=15,
                                     what="/status/buffers healthy again")
        assert healthy["database"]["reachable"] is True, healthy
        gauges = spool_gauges(client)
        assert gauges["queen_file_buffer_pending"] == 0, gauges
        assert gauges["queen_file_buffer_failed"] == 0, gauges
        assert gauges["queen_file_buffer_db_healthy"] == 1, gauges


# --- hand-made spool files (record format of src/spool/record_codec.h) -----------------------
def encode_record(body_json_text):
    """u32 LE body length + body + u32 LE CRC-32 (zlib's, = Poco TYPE_CRC32) of length and body."""
    body = body_json_text.encode("utf-8")
    framed = struct.pack("<I", len(body)) + body
    return framed + struct.pack("<I", zlib.crc32(framed) & 0xFFFFFFFF)


def spool_event_body(queue, partition, transaction_id, payload, trace_id=None):
    """The JSON body of one spooled push item for the default tenant (no producer subject)."""
    event = {"queue": queue, "partition": partition, "transactionId": transaction_id, "encrypted": False}
    if trace_id is not None:
        event["traceId"] = trace_id
    event["payload"] = payload
    return json.dumps(event, separators=(",", ":"))


def spool_file_name(epoch_ms, sequence, extension=FINALIZED_EXTENSION):
    return f"{epoch_ms:013d}-{sequence:08d}{extension}"


def write_spool_file(spool_dir, name, bodies):
    """Write a finalized spool file made of the given record bodies; returns its path and size."""
    path = os.path.join(spool_dir, name)
    data = b"".join(encode_record(b) for b in bodies)
    with open(path, "wb") as fh:
        fh.write(data)
    return path, len(data)


def epoch_ms_ago(seconds):
    """An epoch-millisecond stamp `seconds` in the past: names with it sort before anything the broker makes."""
    return int((time.time() - seconds) * 1000)
