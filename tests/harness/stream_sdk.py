"""A stream worker that drives /streams/v1/* the way the official stream SDKs do (docs/streams.md):
register once, pop the source with a lease under the group streams.<query>, per source partition read the
shard's state, run the operator, and commit one cycle (state ops, sink pushes, the ack of the last message
with count N); idle flushes close ripe windows with a cycle without ack. Two operators, as the tests need
them: an event-time tumbling-window count (window from the payload's `ts`, watermark under `__wm__`) and a
gate (a per-cycle allowance; a partial batch is acked with release_lease false).

Unlike the SDKs, every flush carries an idempotency key derived from what it deletes (our extension), so a
retried flush cannot push twice. Failures are handled as the SDKs do: 5xx and network errors are retried a
few times, anything else is given up and the source lease's expiry brings the messages back.

ledger helpers: expected_windows(), sink_windows(), and the shard state of a query (state_rows()).
"""
import hashlib
import http.client
import json
import time
from collections import Counter, defaultdict

SEP = "\u001f"
WATERMARK_KEY = "__wm__"
RETRIES = 3
# What a request to a broker that died or restarted raises (the SDKs retry network errors).
NETWORK_ERRORS = (OSError, http.client.HTTPException)


def window_tag(window_ms):
    return f"tumb:{window_ms // 1000}"


class StreamWorker:
    """One runner of one query (a worker process of the SDK). Not thread-safe: one per thread."""

    def __init__(self, client, name, source, sink, window_ms=5000, batch=100, gate_allow=None,
                 config_hash="tumbling-count-v1", before_cycle=None):
        self.client = client
        self.name = name
        self.source = source
        self.sink = sink
        self.window_ms = window_ms
        self.batch = batch
        self.gate_allow = gate_allow          # not None: the gate operator, this many messages per cycle
        self.config_hash = config_hash if gate_allow is None else "gate-v1"
        self.group = f"streams.{name}"
        self.before_cycle = before_cycle      # called with the messages of a partition before its cycle
        self.query_id = None
        self.touched = {}                     # partitionId -> partition name, for the idle flush
        self.stats = Counter()                # cycles, committed, failed, refused, messages, flushes

    # ---------------------------------------------------------------- the wire
    def call(self, path, body):
        """POST with the SDK's retry rule: 5xx and network errors up to RETRIES times; None when given up."""
        delay = 0.1
        for attempt in range(RETRIES):
            try:
                resp = self.client.post(path, body)
            except NETWORK_ERRORS:
                self.client.close()
                resp = None
            if resp is not None and resp.status < 500:
                return resp
            self.stats["retried"] += 1
            if attempt + 1 < RETRIES:
                time.sleep(delay)
                delay = min(delay * 4, 2.0)
        return None

    def register(self, reset=False):
        body = {"name": self.name, "source_queue": self.source, "sink_queue": self.sink,
                "config_hash": self.config_hash, "reset": reset}
        for _ in range(20):
            resp = self.call("/streams/v1/queries", body)
            if resp is not None:
                break
            time.sleep(0.5)
        assert resp is not None and resp.status == 200 and resp.body["success"], resp
        self.query_id = resp.body["query_id"]
        return resp.body

    def state(self, partition_id, **filters):
        resp = self.call("/streams/v1/state/get", {"query_id": self.query_id, "partition_id": partition_id, **filters})
        if resp is None or resp.status != 200 or not resp.body.get("success"):
            return None
        return {row["key"]: row["value"] for row in resp.body["rows"]}

    def cycle(self, partition_id, state_ops, push_items, ack, release_lease=True, idempotency_key=None):
        body = {"query_id": self.query_id, "partition_id": partition_id, "consumer_group": self.group,
                "release_lease": release_lease, "state_ops": state_ops, "push_items": push_items, "ack": ack}
        if idempotency_key is not None:
            body["idempotency_key"] = idempotency_key
        self.stats["cycles"] += 1
        resp = self.call("/streams/v1/cycle", body)
        if resp is None:
            self.stats["failed"] += 1
            return None
        assert resp.status == 200, resp
        if not resp.body["success"]:
            self.stats["refused"] += 1
            return resp.body
        self.stats["committed"] += 1
        return resp.body

    # ---------------------------------------------------------------- the loop
    def poll_once(self, wait_ms=300):
        """One pop and the cycles of its partitions. Returns how many messages it got."""
        try:
            resp = self.client.pop(self.source, batch=self.batch, wait=True, timeout_ms=wait_ms,
                                   consumer_group=self.group, partitions=4)
        except NETWORK_ERRORS:
            self.client.close()
            time.sleep(0.1)
            return 0
        if resp.status != 200:
            time.sleep(0.1)  # 204 (nothing), or 503 during an outage
            return 0
        by_partition = defaultdict(list)
        for message in resp.body["messages"]:
            by_partition[message["partitionId"]].append(message)
        for partition_id, messages in by_partition.items():
            messages.sort(key=lambda m: (m["createdAt"], m["id"]))
            self.touched[partition_id] = messages[0]["partition"]
            self.stats["messages"] += len(messages)
            if self.gate_allow is None:
                self.window_cycle(partition_id, messages)
            else:
                self.gate_cycle(partition_id, messages)
        return len(resp.body["messages"])

    def window_cycle(self, partition_id, messages):
        state = self.state(partition_id, keys=[])
        if state is None:
            self.stats["failed"] += 1
            return
        watermark = state.get(WATERMARK_KEY, {}).get("eventTimeMs", -1)
        tag = window_tag(self.window_ms)
        touched, emits, ops = {}, [], []
        for message in messages:
            ts = message["data"]["ts"]
            start = ts - ts % self.window_ms
            if start + self.window_ms <= watermark:
                self.stats["late"] += 1
                continue
            key = f"{tag}{SEP}{start}{SEP}{message['partition']}"
            value = touched.get(key) or state.get(key) or {"acc": {"count": 0}, "windowStart": start,
                                                           "windowEnd": start + self.window_ms}
            value = {**value, "acc": {"count": value["acc"]["count"] + 1}}
            touched[key] = value
            watermark = max(watermark, ts)
        # Windows closed by the watermark are emitted and deleted; the others are kept.
        for key in sorted(set(touched) | {k for k in state if k.startswith(tag + SEP)}):
            value = touched.get(key) or state[key]
            if value["windowEnd"] <= watermark:
                emits.append(self.emit(value, key))
                ops.append({"type": "delete", "key": key})
            elif key in touched:
                ops.append({"type": "upsert", "key": key, "value": value})
        ops.append({"type": "upsert", "key": WATERMARK_KEY, "value": {"eventTimeMs": watermark}})
        last = messages[-1]
        if self.before_cycle:
            self.before_cycle(messages)
        self.cycle(partition_id, ops, emits, {"transactionId": last["transactionId"], "leaseId": last["leaseId"],
                                              "status": "completed", "count": len(messages)})

    def emit(self, value, key):
        partition = key.split(SEP, 2)[2]
        return {"queue": self.sink, "partition": partition,
                "payload": {"partition": partition, "windowStart": value["windowStart"],
                            "count": value["acc"]["count"]}}

    def gate_cycle(self, partition_id, messages):
        state = self.state(partition_id)
        if state is None:
            self.stats["failed"] += 1
            return
        allowed = messages[:self.gate_allow]
        passed = state.get("gate", {}).get("passed", 0) + len(allowed)
        last = allowed[-1]
        if self.before_cycle:
            self.before_cycle(messages)
        self.cycle(partition_id, [{"type": "upsert", "key": "gate", "value": {"passed": passed}}],
                   [{"queue": self.sink, "partition": m["partition"], "payload": m["data"]} for m in allowed],
                   {"transactionId": last["transactionId"], "leaseId": last["leaseId"], "status": "completed",
                    "count": len(allowed)},
                   release_lease=len(allowed) == len(messages))

    def flush(self, clock_ms):
        """The idle flush: every touched partition's windows ripe at clock_ms, emitted and deleted by a
        cycle without ack, keyed by what it deletes. Returns False when some flush did not commit."""
        ok = True
        tag = window_tag(self.window_ms)
        for partition_id in sorted(self.touched):
            ripe = self.state(partition_id, keys=[], key_prefix=tag + SEP, ripe_at_or_before=clock_ms)
            if ripe is None:
                ok = False
                continue
            if not ripe:
                continue
            keys = sorted(ripe)
            digest = hashlib.sha256(json.dumps([[k, ripe[k]] for k in keys]).encode()).hexdigest()[:32]
            self.stats["flushes"] += 1
            body = self.cycle(partition_id, [{"type": "delete", "key": k} for k in keys],
                              [self.emit(ripe[k], k) for k in keys], None, idempotency_key=f"flush:{digest}")
            ok = ok and body is not None and body["success"]
        return ok


# -------------------------------------------------------------------- the ledger
def push_source(client, queue, partitions, per_partition, first_ts=0, step_ms=1000, batch=50, first_seq=0):
    """per_partition messages in each partition, payload {"ts", "seq"}; ts advances step_ms per message.
    first_seq continues a partition where an earlier call stopped (seq and ts go on from there)."""
    items = [{"queue": queue, "partition": p, "payload": {"ts": first_ts + i * step_ms, "seq": i},
              "transactionId": f"{p}-{i}"} for p in partitions for i in range(first_seq, first_seq + per_partition)]
    for at in range(0, len(items), batch):
        resp = client.push(items[at:at + batch])
        assert resp.status in (200, 201), resp
        assert all(r["status"] == "queued" for r in resp.body), resp.body


def expected_windows(partitions, per_partition, window_ms, first_ts=0, step_ms=1000):
    counts = Counter()
    for p in partitions:
        for i in range(per_partition):
            ts = first_ts + i * step_ms
            counts[(p, ts - ts % window_ms)] += 1
    return dict(counts)


def sink_windows(pg, sink):
    """Every window result in the sink: a list of ((partition, windowStart), count), duplicates kept."""
    rows = pg.query("""
        select m.payload::text as payload from queen.stored_messages m
        join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
        where q.name = :'sink'""", sink=sink)
    out = []
    for row in rows:
        payload = json.loads(row["payload"])
        out.append(((payload["partition"], payload["windowStart"]), payload["count"]))
    return out


def assert_exactly_once(pg, sink, expected):
    """The sink holds every expected window exactly once with its exact count, and nothing else."""
    results = sink_windows(pg, sink)
    seen = Counter(window for window, _ in results)
    duplicated = {w: n for w, n in seen.items() if n > 1}
    assert not duplicated, f"windows emitted more than once: {duplicated}"
    got = dict(results)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = {w: (got[w], expected[w]) for w in expected if w in got and got[w] != expected[w]}
    assert not missing and not extra and not wrong, f"missing {missing[:10]}, extra {extra[:10]}, " \
                                                    f"wrong counts (got, expected) {dict(list(wrong.items())[:10])}"


def state_rows(pg, query_id):
    """{(partition_id, key): value} of a query's whole state."""
    rows = pg.query("select partition_id::text as partition_id, key, value::text as value from queen.stream_state "
                    "where query_id = :'q'::uuid", q=query_id)
    return {(r["partition_id"], r["key"]): json.loads(r["value"]) for r in rows}


def assert_state_matches_source(pg, query_id, partitions, per_partition, first_ts=0, step_ms=1000):
    """After the last flush: each source partition's shard holds only its watermark, the last event time."""
    state = state_rows(pg, query_id)
    names = {r["id"]: r["name"] for r in pg.query("select id::text, name from queen.partitions")}
    by_partition = {}
    for (partition_id, key), value in state.items():
        assert key == WATERMARK_KEY, f"state left behind after the flush: {key!r} = {value}"
        by_partition[names.get(partition_id, partition_id)] = value["eventTimeMs"]
    assert by_partition == {p: first_ts + (per_partition - 1) * step_ms for p in partitions}, by_partition
