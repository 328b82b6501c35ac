"""Ledger: what clients were told, checked against what PostgreSQL holds.

Fault tests push while things break. Every push item is recorded with the status the client saw
(`queued`, `buffered`, `duplicate`, `failed`, or `unknown` when the request itself failed and the
outcome is ambiguous). check() then verifies, against the database:

* every item the broker accepted (queued / buffered / duplicate) is stored exactly once;
* nothing is stored that the ledger never sent (no phantom messages);
* per-partition order: within one stream (one sequential producer), accepted items of the
  statuses in `order_statuses` are stored in the order they were sent;
* (optional) consumers saw every accepted message at least once (record_delivery).

A stream is any label for a sequence of pushes issued one after another by one producer; order
is only promised within a stream. The ledger is thread-safe: producers record from many threads.
"""
import threading

from . import schema
from .waiting import attempts

ACCEPTED = ("queued", "buffered", "duplicate")


class LedgerEntry:
    __slots__ = ("stream", "position", "queue", "partition", "transaction_id", "status", "message_id", "error")

    def __init__(self, stream, position, queue, partition, transaction_id, status, message_id, error):
        self.stream, self.position = stream, position
        self.queue, self.partition, self.transaction_id = queue, partition, transaction_id
        self.status, self.message_id, self.error = status, message_id, error

    @property
    def key(self):
        return (self.queue, self.partition, self.transaction_id)

    def __repr__(self):
        return f"<{self.status} {self.queue}/{self.partition}/{self.transaction_id} stream={self.stream}#{self.position}>"


class LedgerReport:
    def __init__(self):
        self.missing = []       # accepted but not stored
        self.duplicated = []    # stored more than once
        self.phantoms = []      # stored but never sent
        self.out_of_order = []  # (stream, queue, partition, earlier entry, later entry)
        self.failed_but_stored = []  # answered `failed` yet present (informational)
        self.undelivered = []   # accepted but never seen by a consumer (only with check_delivery)
        self.counts = {}

    @property
    def ok(self):
        return not (self.missing or self.duplicated or self.phantoms or self.out_of_order or self.undelivered)

    def summary(self, limit=10):
        parts = [f"counts={self.counts}"]
        for name in ("missing", "duplicated", "phantoms", "out_of_order", "undelivered", "failed_but_stored"):
            values = getattr(self, name)
            if values:
                parts.append(f"{name} ({len(values)}): {values[:limit]}")
        return "\n".join(parts)


class Ledger:
    def __init__(self):
        self._lock = threading.Lock()
        self._entries = []
        self._stream_positions = {}
        self._deliveries = {}
        # status -> items; kept as items are recorded, so polling the counts under a heavy load
        # costs nothing (a fault test polls them every 50 ms while 100k+ items are recorded).
        self._status_counts = {}

    # --- recording --------------------------------------------------------------------------
    def record_push(self, stream, items, response=None, error=None):
        """Record one push request: the items sent and the Response (or the exception raised).

        Items without a transactionId cannot be tracked and are rejected: give every item one.
        """
        results = None
        if response is not None and response.status in (201, 500) and isinstance(response.body, list):
            results = response.body
        with self._lock:
            for index, item in enumerate(items):
                txid = item.get("transactionId")
                if not txid:
                    raise ValueError("ledger items need an explicit transactionId")
                status, message_id, item_error = "unknown", None, None
                if results is not None and index < len(results):
                    result = results[index]
                    status = result.get("status", "unknown")
                    message_id = result.get("message_id") or result.get("messageId")
                    item_error = result.get("error")
                elif response is not None and 400 <= response.status < 500:
                    status = "rejected"
                if error is not None:
                    item_error = repr(error)
                position = self._stream_positions.get(stream, 0)
                self._stream_positions[stream] = position + 1
                self._entries.append(LedgerEntry(stream, position, item["queue"], item.get("partition", "Default"),
                                                 txid, status, message_id, item_error))
                self._status_counts[status] = self._status_counts.get(status, 0) + 1

    def record_delivery(self, messages, queue=None):
        """Record popped messages (dicts from a pop response); counts deliveries per message key."""
        with self._lock:
            for msg in messages:
                key = (msg.get("queue") or queue, msg["partition"], msg["transactionId"])
                self._deliveries[key] = self._deliveries.get(key, 0) + 1

    # --- views ------------------------------------------------------------------------------
    def entries(self):
        with self._lock:
            return list(self._entries)

    def accepted_keys(self):
        return {e.key for e in self.entries() if e.status in ACCEPTED}

    def status_counts(self):
        with self._lock:
            return dict(self._status_counts)

    def queues(self):
        return sorted({e.queue for e in self.entries()})

    def deliveries(self):
        with self._lock:
            return dict(self._deliveries)

    # --- checking ---------------------------------------------------------------------------
    def check(self, pg, order_statuses=("queued",), check_delivery=False):
        """Compare with the database once and return a LedgerReport (see module doc)."""
        report = LedgerReport()
        entries = self.entries()
        report.counts = self.status_counts()
        stored = schema.stored_messages(pg, self.queues())
        stored_count = {}
        position = {}
        for row in stored:
            key = (row["queue"], row["partition"], row["transaction_id"])
            stored_count[key] = stored_count.get(key, 0) + 1
            position[key] = min(row["position"], position.get(key, row["position"]))
        sent = {e.key for e in entries}
        accepted = {e.key for e in entries if e.status in ACCEPTED}
        report.missing = sorted(k for k in accepted if k not in stored_count)
        report.duplicated = sorted((k, n) for k, n in stored_count.items() if n > 1)
        report.phantoms = sorted(k for k in stored_count if k not in sent)
        answered_failed_only = {e.key for e in entries if e.status == "failed"} - accepted
        report.failed_but_stored = sorted(k for k in answered_failed_only if k in stored_count)
        report.out_of_order = self._order_violations(entries, position, order_statuses)
        if check_delivery:
            delivered = self.deliveries()
            report.undelivered = sorted(k for k in accepted if k not in delivered)
        return report

    @staticmethod
    def _order_violations(entries, position, order_statuses):
        last_seen = {}  # (stream, queue, partition) -> (position in partition, entry)
        violations = []
        seen_keys = set()
        for entry in sorted(entries, key=lambda e: (str(e.stream), e.position)):
            if entry.status not in order_statuses or entry.key in seen_keys or entry.key not in position:
                continue
            seen_keys.add(entry.key)
            lane = (entry.stream, entry.queue, entry.partition)
            here = position[entry.key]
            previous = last_seen.get(lane)
            if previous is not None and here <= previous[0]:
                violations.append((entry.stream, entry.queue, entry.partition, previous[1], entry))
            last_seen[lane] = (here, entry)
        return violations

    def assert_consistent(self, pg, timeout=30.0, order_statuses=("queued",), check_delivery=False):
        """Poll check() until it passes (a spool drain may still be replaying) or `timeout` passes,
        then raise AssertionError with the report."""
        for _ in attempts(timeout, interval=0.25, max_interval=0.25):
            report = self.check(pg, order_statuses=order_statuses, check_delivery=check_delivery)
            if report.ok:
                break
        assert report.ok, "ledger does not match the database:\n" + report.summary()
        return report
