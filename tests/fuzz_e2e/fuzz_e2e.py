#!/usr/bin/python3
"""End-to-end fuzz run: mutated HTTP requests against a real broker over raw sockets, then a ledger check.

    make fuzz-e2e                                   # 1,000,000 requests
    FUZZ_E2E_REQUESTS=20000 FUZZ_E2E_SEED=42 /usr/bin/python3 tests/fuzz_e2e/fuzz_e2e.py
    /usr/bin/python3 tests/fuzz_e2e/fuzz_e2e.py --replay <dir>/worker-3-last-requests.jsonl

A fresh database (TempDatabase on the project cluster) and one broker (tests/harness Broker) are started;
FUZZ_E2E_WORKERS processes send the requests built by e2e_requests.Generator over keep-alive TCP
connections (reconnecting whenever an exchange leaves the connection unusable). Every 200/201 answer that
reads as push results (a JSON array of items with a status) or as a successful transaction is recorded.
At the end:

* the broker process is alive, GET /health answers 200, a push + pop + ack round-trips;
* ledger: the messages stored (queen.stored_messages plus pending queen.timers) are exactly the items answered
  `queued` (matched by message id, with transactionId/queue/partition cross-checked) plus the `buffered`
  ones (matched by queue/partition/transactionId once the spool drained); no key stored twice, no item
  answered `queued` twice;
* the broker's RSS (VmRSS) at the end is below FUZZ_E2E_RSS_LIMIT_MB (512).

On failure the last FUZZ_E2E_RING (300) requests of every worker are written (base64, with the mutations
and the send plan) into the run's temp folder, which is printed; --replay sends such a file one request at
a time to a fresh broker and names the first request after which the broker is gone.

Environment: FUZZ_E2E_REQUESTS (1000000 here, 20000 in the pytest slice), FUZZ_E2E_SEED (random, printed),
FUZZ_E2E_WORKERS (8), FUZZ_E2E_TIMEOUT_S (120: per exchange), FUZZ_E2E_RSS_LIMIT_MB (512), FUZZ_E2E_RING (300),
FUZZ_E2E_SKIP (comma-separated mutation-name prefixes to leave out, e.g. "body-nest" to look past a known
crash; empty by default), QUEEN_BROKER_BIN, PG_* (see tests/harness/README.md).
"""
import argparse
import collections
import json
import multiprocessing
import os
import random
import re
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for the harness

from harness import Broker, PgTarget, TempDatabase, attempts  # noqa: E402
from harness import env as harness_env  # noqa: E402

import e2e_requests  # noqa: E402
from e2e_wire import Connection  # noqa: E402

KIB = 1024
MIB = 1024 * KIB
YEAR_MS = 365 * 86400000

# The broker under fuzz. Long polls are capped at 200 ms so a mutated `timeout` cannot park a worker for an
# hour; the retention job (the only thing besides DELETE routes that removes messages) is pushed a year
# out so the ledger stays exact even when a mutated configure enables retention.
BROKER_ENV = {
    "POP_MAX_TIMEOUT_MS": "200",
    "RETENTION_INTERVAL": str(YEAR_MS),
    "LOG_LEVEL": "warn",
}

ACCEPTED_STATUSES = ("queued", "buffered", "duplicate", "failed")
# How a request the client never completed went out (e2e_requests.Mutator plan kinds).
PLAN_NAMES = {
    "close_all": "the whole body under a larger Content-Length, then close",
    "close_all_unsure": "the whole body, then close (other header mutations may have made it complete)",
    "close_at_random": "closed at a random byte",
    "close_after_head": "closed right after the head",
    "shut_at_random": "half-closed at a random byte",
    "shut_after_all": "everything sent but the body never ends (huge Content-Length or no last chunk), half-closed",
}
# Plans after which the request provably never completed: the whole body went out under a Content-Length
# promising more, then the connection closed (raw-head flips, which could break that header, never get it).
NEVER_COMPLETE_PLANS = ("close_all",)
# Pause after a refused connection before the next request, so a worker does not spin while the broker is
# unable to accept (it is alive: a dead broker ends the worker).
REFUSED_BACKOFF_S = 0.05
# How often the supervisor looks at the workers, the broker and the progress counter, and how often the
# broker's memory is sampled for the peak.
SUPERVISE_INTERVAL_S = 0.2
RSS_SAMPLE_INTERVAL_S = 0.5
# How long the ledger check waits for buffered pushes still in the spool to be replayed, and how often it looks.
SPOOL_REPLAY_WAIT_S = 60
SPOOL_REPLAY_POLL_S = 1.0
# replay: after each request, the window in which a crash it caused must end the process. A broker that
# stays up is the normal outcome, so this is a short window, not a wait for anything.
REPLAY_CRASH_WINDOW_S = 0.05
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class Options:
    def __init__(self, requests, seed, workers=8, timeout=120.0, rss_limit_mb=512, ring=300, skip=(),
                 clean_ratio=0.2, progress_s=10.0, stall_s=180.0):
        self.requests, self.seed, self.workers = int(requests), int(seed), int(workers)
        self.timeout, self.rss_limit_mb, self.ring = float(timeout), int(rss_limit_mb), int(ring)
        self.skip = tuple(s for s in skip if s)
        self.clean_ratio, self.progress_s, self.stall_s = float(clean_ratio), float(progress_s), float(stall_s)
        self.tag = f"fz{self.seed % 100000}"

    @classmethod
    def from_env(cls, default_requests):
        env = os.environ
        seed = env.get("FUZZ_E2E_SEED")
        return cls(requests=env.get("FUZZ_E2E_REQUESTS") or default_requests,
                   seed=int(seed) if seed else random.SystemRandom().randrange(10 ** 9),
                   workers=env.get("FUZZ_E2E_WORKERS") or 8,
                   # Generous: a 10,000-item push answers in ~2 s on an idle 2-core box but took over
                   # 30 s while four builds shared it, and an unanswered push counts against the ledger.
                   timeout=env.get("FUZZ_E2E_TIMEOUT_S") or 120,
                   rss_limit_mb=env.get("FUZZ_E2E_RSS_LIMIT_MB") or 512,
                   ring=env.get("FUZZ_E2E_RING") or 300,
                   skip=(env.get("FUZZ_E2E_SKIP") or "").split(","))

    def describe(self):
        return (f"requests={self.requests} seed={self.seed} workers={self.workers} timeout={self.timeout:g}s "
                f"rss_limit={self.rss_limit_mb}MiB ring={self.ring}" + (f" skip={','.join(self.skip)}" if self.skip
                                                                       else ""))


def rss_kib(pid):
    """VmRSS of a process in KiB, None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def keep_fresh(path):
    """Touch the run folders: the harness prunes run-* folders by mtime (older than an hour, beyond the
    newest five), and another test session starting during a long run would delete ours."""
    for folder in (path, os.path.dirname(path)):
        try:
            os.utime(folder)
        except OSError:
            pass


def process_alive(pid):
    """False once the process exited (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return False


# --- answers --------------------------------------------------------------------------------------------------
def ledger_lines(resp):
    """Ledger records of one answer: push results (201/200 array of items) or a successful transaction.

    Returns (records, parsed_json_or_None, note) where note flags a 2xx JSON answer that is not valid
    UTF-8 (still read, with the bad bytes as surrogate escapes) or not JSON at all.
    """
    if resp.status not in (200, 201) or not resp.body:
        return [], None, None
    first = resp.body.lstrip()[:1]
    if first not in (b"[", b"{"):
        return [], None, None
    note = None
    try:
        text = resp.body.decode("utf-8")
    except UnicodeDecodeError:
        text = resp.body.decode("utf-8", "surrogateescape")
        note = "2xx-body-not-utf8"
    try:
        doc = json.loads(text)
    except ValueError as exc:
        if "json" not in resp.headers.get("content-type", ""):
            return [], None, None
        at = getattr(exc, "pos", 0) or 0
        return [], None, ("2xx-body-not-json", f"{exc}; around: {text[max(0, at - 150):at + 150]!r}")
    except RecursionError:
        # Not the broker's fault: a pop echoes a stored payload nested deeper than Python parses.
        # Push and transaction answers never nest, so the ledger loses nothing.
        return [], None, ("info-2xx-too-deep-for-python-json", "an answer echoing a deeply nested payload")
    records = []
    if isinstance(doc, list):
        for item in doc:
            if isinstance(item, dict) and item.get("status") in ACCEPTED_STATUSES and "transactionId" in item \
                    and "queue" in item:
                records.append({"k": item["status"], "src": "push", "q": item.get("queue"),
                                "p": item.get("partition"), "pid": item.get("partitionId"),
                                "t": item.get("transactionId"), "m": item.get("messageId")})
    elif isinstance(doc, dict) and doc.get("success") is True and isinstance(doc.get("results"), list) \
            and "transactionId" in doc:
        for item in doc["results"]:
            if isinstance(item, dict) and item.get("type") == "push" and item.get("success") is True:
                records.append({"k": "queued", "src": "transaction", "q": item.get("queueName"), "p": None,
                                "pid": item.get("partitionId"), "t": item.get("transactionId"),
                                "m": item.get("messageId")})
    return records, doc, note


# --- one worker process ----------------------------------------------------------------------------------
def worker_main(index, count, opts, host, port, broker_pid, out_dir, stop, progress):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    gen = e2e_requests.Generator(opts.seed, index, opts.tag, clean_ratio=opts.clean_ratio, skip=opts.skip)
    conn = Connection(host, port)
    ring = collections.deque(maxlen=opts.ring)
    statuses = collections.Counter()
    by_route = collections.defaultdict(collections.Counter)
    incomplete = collections.Counter()
    notes = collections.Counter()
    samples = {}
    seconds_by_route = collections.Counter()
    mutation_counts = collections.Counter()
    slow = []
    stopped_because = None
    done = 0
    local = 0
    ledger = open(os.path.join(out_dir, f"ledger-w{index}.jsonl"), "w")
    started = time.monotonic()
    try:
        for seq in range(count):
            if stop.is_set():
                stopped_because = "stop requested"
                break
            req = gen.next(seq)
            t0 = time.monotonic()
            outcome = conn.exchange(req.raw, req.send_plan, req.responses, head=(req.method == b"HEAD"),
                                    timeout=opts.timeout)
            elapsed = time.monotonic() - t0
            key = outcome.status_key
            ring.append((seq, req, key, outcome.detail))
            statuses[key] += 1
            by_route[req.route][key] += 1
            seconds_by_route[req.route] += elapsed
            for name in req.mutations:
                mutation_counts[name] += 1
            if req.completeness != "complete":
                incomplete[f"{req.completeness}->{key}"] += 1
            if elapsed > 5.0 and len(slow) < 50:
                slow.append({"seq": seq, "route": req.route, "mutations": req.mutations, "status": key,
                             "seconds": round(elapsed, 2)})
            for resp in outcome.responses:
                if not resp.version.startswith("HTTP/1."):
                    note = "status-line-not-HTTP/1.x"
                    notes[note] += 1
                    if notes[note] <= 3:
                        samples.setdefault(note, []).append({"seq": seq, "mutations": req.mutations,
                                                             "request": req.raw[:120].decode("latin-1"),
                                                             "status_line": f"{resp.version} {resp.status}"})
                records, doc, note = ledger_lines(resp)
                if note:
                    note, detail = note if isinstance(note, tuple) else (note, resp.body[:300].decode("latin-1"))
                    notes[note] += 1
                    if notes[note] <= 3:
                        samples.setdefault(note, []).append({"seq": seq, "mutations": req.mutations,
                                                             "status": resp.status, "detail": detail})
                for record in records:
                    ledger.write(json.dumps(record) + "\n")
                if doc is not None and resp.status == 200:
                    gen.state.harvest(doc)
            if req.txids:
                if req.completeness != "complete":
                    ledger.write(json.dumps({"k": "incomplete", "txids": req.txids, "seq": seq,
                                             "mutations": req.mutations, "plan": req.plan[0]}) + "\n")
                elif not outcome.responses:
                    ledger.write(json.dumps({"k": "unanswered", "txids": req.txids, "seq": seq,
                                             "why": outcome.kind, "mutations": req.mutations}) + "\n")
            done += 1
            local += 1
            if local >= 50:
                with progress.get_lock():
                    progress.value += local
                local = 0
            if outcome.kind == "refused":
                if not process_alive(broker_pid):
                    stopped_because = "broker gone (connection refused)"
                    break
                time.sleep(REFUSED_BACKOFF_S)
    finally:
        with progress.get_lock():
            progress.value += local
        ledger.close()
        conn.close()
        elapsed_total = time.monotonic() - started
        with open(os.path.join(out_dir, f"ring-w{index}.jsonl"), "w") as fh:
            for seq, req, key, detail in ring:
                fh.write(json.dumps({"worker": index, "seq": seq, "route": req.route, "mutations": req.mutations,
                                     "plan": req.send_plan, "completeness": req.completeness,
                                     "responses": req.responses, "head": req.method == b"HEAD",
                                     "status": key, "detail": detail, "length": len(req.raw),
                                     "raw": e2e_requests.encode_raw(req.raw)}) + "\n")
        with open(os.path.join(out_dir, f"stats-w{index}.json"), "w") as fh:
            json.dump({"worker": index, "done": done, "planned": count, "seconds": elapsed_total,
                       "statuses": statuses, "by_route": by_route, "incomplete": incomplete, "notes": notes,
                       "samples": samples, "seconds_by_route": seconds_by_route,
                       "mutations": mutation_counts, "denials": gen.denials, "skipped": gen.skipped,
                       "connects": conn.connects, "slow": slow, "stopped_because": stopped_because}, fh)


# --- the ledger check --------------------------------------------------------------------------------------
# Text columns travel hex-encoded: psql drops some code points (U+10FFFF) from its output.
STORED_SQL = """
select m.id::text, encode(convert_to(m.transaction_id, 'UTF8'), 'hex'),
       coalesce(encode(convert_to(q.name, 'UTF8'), 'hex'), '-'), coalesce(encode(convert_to(p.name, 'UTF8'), 'hex'), '-'),
       m.partition_id::text, 'message'
  from queen.stored_messages m
  left join queen.partitions p on p.id = m.partition_id
  left join queen.queues q on q.id = p.queue_id
union all
select t.message_id::text, encode(convert_to(t.transaction_id, 'UTF8'), 'hex'),
       encode(convert_to(t.queue_name, 'UTF8'), 'hex'), encode(convert_to(t.partition_name, 'UTF8'), 'hex'),
       '-', 'timer'
  from queen.timers t;
"""


def _unhex(text):
    return None if text == "-" else bytes.fromhex(text).decode("utf-8")


class LedgerResult:
    def __init__(self):
        self.counts = collections.Counter()
        self.stored = 0
        self.missing = []
        self.extra = []
        # Stored rows whose only requests the client cut before reading an answer. A cut at a random byte
        # may fall after the whole push (in a pipeline, or on its last byte), and a broker must then store
        # it: their outcome is unknown to the client, so they are reported, not counted against the ledger.
        # Not so a request whose whole body went out under a Content-Length promising more before the
        # close (plan close_all): it provably never completed, and a row from it stays an extra.
        self.unknown_outcome = []
        self.mismatched = []
        self.stored_twice = []
        self.queued_twice = []
        self.buffered_missing = []
        self.duplicate_of_unknown = 0
        self.failed_but_stored = []

    @property
    def ok(self):
        return not (self.missing or self.extra or self.mismatched or self.stored_twice or self.queued_twice
                    or self.buffered_missing)

    def summary(self, limit=10):
        lines = [f"answered: {dict(self.counts)}; stored rows (messages + pending timers): {self.stored}"]
        if self.extra:
            causes = collections.Counter(e["cause"] for e in self.extra)
            lines.append("  extra rows by cause: " + "; ".join(f"{n} x {why}" for why, n in causes.most_common(8)))
        if self.unknown_outcome:
            lines.append(f"  stored from requests the client cut before any answer (outcome unknown to it): "
                         f"{len(self.unknown_outcome)}")
        for name in ("missing", "extra", "mismatched", "stored_twice", "queued_twice", "buffered_missing",
                     "failed_but_stored"):
            values = getattr(self, name)
            if values:
                lines.append(f"  {name} ({len(values)}): {values[:limit]}")
        if self.duplicate_of_unknown:
            lines.append(f"  answered duplicate for a key never answered queued: {self.duplicate_of_unknown}")
        lines.append("  ledger " + ("OK: stored == answered queued (+ buffered), nothing twice" if self.ok
                                    else "MISMATCH"))
        return "\n".join(lines)


def read_ledger(out_dir, workers):
    records, incomplete, unanswered = [], {}, {}
    for index in range(workers):
        path = os.path.join(out_dir, f"ledger-w{index}.jsonl")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a worker killed mid-line
                if record["k"] == "incomplete":
                    for txid in record["txids"]:
                        incomplete.setdefault(txid, []).append(
                            (f"w{index}#{record['seq']}", ",".join(record["mutations"]), record["plan"]))
                elif record["k"] == "unanswered":
                    for txid in record["txids"]:
                        unanswered.setdefault(txid, []).append(
                            (f"w{index}#{record['seq']} {record['why']}", ",".join(record["mutations"])))
                else:
                    records.append(record)
    return records, incomplete, unanswered


def stored_rows(target):
    out = target.psql(STORED_SQL, timeout=900)
    rows = []
    for line in out.splitlines():
        if not line.strip():
            continue
        m, t, q, p, pid, src = line.split("|")
        rows.append({"m": m, "t": _unhex(t), "q": _unhex(q), "p": _unhex(p), "pid": None if pid == "-" else pid,
                     "src": src})
    return rows


def check_ledger(target, records, incomplete, unanswered):
    result = LedgerResult()
    rows = stored_rows(target)
    result.stored = len(rows)
    by_id = {}
    by_key = collections.defaultdict(list)
    pid_names = {}
    for row in rows:
        by_id.setdefault(row["m"], []).append(row)
        by_key[(row["q"], row["p"], row["t"])].append(row)
        if row["pid"]:
            pid_names[row["pid"]] = (row["q"], row["p"])
    result.stored_twice = [(k, len(v)) for k, v in by_key.items() if len(v) > 1]
    result.stored_twice += [(f"message id {m}", len(v)) for m, v in by_id.items() if len(v) > 1]

    queued_ids = collections.Counter()
    queued_keys = collections.defaultdict(set)
    accounted = set()
    accepted_keys = set()
    for record in records:
        result.counts[f"{record['k']}({record['src']})"] += 1
        q, p = record["q"], record["p"]
        if p is None and record.get("pid") in pid_names:
            q, p = pid_names[record["pid"]]
        key = (q, p, record["t"])
        if record["k"] == "queued":
            accepted_keys.add(key)
            queued_ids[record["m"]] += 1
            queued_keys[key].add(record["m"])
            stored = by_id.get(record["m"])
            if not stored:
                result.missing.append(record)
                continue
            accounted.add(record["m"])
            row = stored[0]
            if row["t"] != record["t"] or row["q"] != record["q"] or (record["p"] is not None and row["p"] != p):
                result.mismatched.append({"answered": record, "stored": row})
        elif record["k"] == "buffered":
            accepted_keys.add(key)
            stored = by_key.get(key)
            if not stored:
                result.buffered_missing.append(record)
            else:
                accounted.update(r["m"] for r in stored)
    for record in records:
        q, p = record["q"], record["p"]
        key = (q, p, record["t"])
        if record["k"] == "duplicate" and key not in accepted_keys:
            result.duplicate_of_unknown += 1
        elif record["k"] == "failed" and key in by_key and key not in accepted_keys:
            result.failed_but_stored.append(record)
    result.queued_twice = [(m, n) for m, n in queued_ids.items() if n > 1]
    result.queued_twice += [(k, sorted(ids)) for k, ids in queued_keys.items() if len(ids) > 1]
    for row in rows:
        if row["m"] not in accounted:
            why, where, cause = "never answered queued", "", "never answered queued"
            if UUID_RE.match(row["t"] or ""):
                cause = why = ("never answered queued; its transactionId was minted by the broker (the request "
                               "carried none), so it cannot be traced to a request")
            if row["t"] in incomplete:
                sent = incomplete[row["t"]]
                where = " ".join(s[0] for s in sent)
                why = "sent only in requests the client never completed: " + "; ".join(
                    f"{s[0]} [{s[1]}]" for s in sent)
                cause = "client never completed the request: " + " or ".join(sorted({PLAN_NAMES.get(s[2], s[2])
                                                                                     for s in sent}))
            elif row["t"] in unanswered:
                sent = unanswered[row["t"]]
                where = " ".join(s[0] for s in sent)
                why = "its request got no answer: " + "; ".join(f"{s[0]} [{s[1]}]" for s in sent)
                cause = "its request got no answer"
            if row["t"] in incomplete and row["t"] not in unanswered and \
                    not all(s[2] in NEVER_COMPLETE_PLANS for s in incomplete[row["t"]]):
                result.unknown_outcome.append({**row, "why": why, "request": where})
                continue
            result.extra.append({**row, "why": why, "request": where, "cause": cause})
    return result


# --- the run --------------------------------------------------------------------------------------------------
class Report:
    def __init__(self, opts, out_dir):
        self.opts, self.out_dir = opts, out_dir
        self.failures = []
        self.lines = []
        self.data = {"options": vars(opts).copy()}

    def say(self, text):
        self.lines.append(text)
        print(text, flush=True)

    def fail(self, text):
        self.failures.append(text)
        self.say(f"FAIL: {text}")

    @property
    def ok(self):
        return not self.failures

    @property
    def text(self):
        return "\n".join(self.lines)


def merge_stats(out_dir, workers):
    merged = {"done": 0, "statuses": collections.Counter(), "by_route": collections.defaultdict(collections.Counter),
              "incomplete": collections.Counter(), "notes": collections.Counter(), "samples": {},
              "seconds_by_route": collections.Counter(),
              "mutations": collections.Counter(), "denials": 0, "skipped": 0, "connects": 0, "slow": [],
              "stopped": {}, "missing_workers": []}
    for index in range(workers):
        path = os.path.join(out_dir, f"stats-w{index}.json")
        if not os.path.exists(path):
            merged["missing_workers"].append(index)
            continue
        with open(path) as fh:
            s = json.load(fh)
        merged["done"] += s["done"]
        merged["statuses"].update(s["statuses"])
        for route, counts in s["by_route"].items():
            merged["by_route"][route].update(counts)
        merged["incomplete"].update(s["incomplete"])
        merged["notes"].update(s["notes"])
        merged["seconds_by_route"].update(s["seconds_by_route"])
        for note, values in s["samples"].items():
            merged["samples"].setdefault(note, []).extend(values[:3 - len(merged["samples"].get(note, []))])
        merged["mutations"].update(s["mutations"])
        merged["denials"] += s["denials"]
        merged["skipped"] += s["skipped"]
        merged["connects"] += s["connects"]
        merged["slow"] += s["slow"]
        if s["stopped_because"]:
            merged["stopped"][index] = s["stopped_because"]
    return merged


def round_trip(broker, tag):
    """A normal push, pop and ack on a fresh queue. Returns None when fine, else what went wrong."""
    queue = f"{tag}-final-{random.SystemRandom().randrange(10 ** 9)}"
    with broker.client(timeout=15) as client:
        resp = client.push([{"queue": queue, "partition": "p", "payload": {"final": True}, "transactionId": "final-1"}])
        if resp.status != 201 or not isinstance(resp.body, list) or resp.body[0].get("status") != "queued":
            return f"push answered {resp.status} {resp.body!r:.300}"
        resp = client.pop(queue, batch=1, wait=True, timeout_ms=1000)
        if resp.status != 200 or not resp.body["messages"] or resp.body["messages"][0]["transactionId"] != "final-1":
            return f"pop answered {resp.status} {resp.body!r:.300}"
        message = resp.body["messages"][0]
        resp = client.ack("final-1", message["partitionId"], lease_id=message["leaseId"], status="completed")
        if resp.status != 200 or not isinstance(resp.body, list) or not resp.body[0].get("success"):
            return f"ack answered {resp.status} {resp.body!r:.300}"
    return None


def run(opts, pg=None):
    """One full run; returns a Report (report.ok, report.failures, report.out_dir)."""
    pg = pg or PgTarget.from_env()
    out_dir = harness_env.new_tmp_dir(f"fuzz-e2e-{opts.seed}")
    report = Report(opts, out_dir)
    report.say(f"fuzz-e2e: {opts.describe()}")
    report.say(f"fuzz-e2e: replay with FUZZ_E2E_SEED={opts.seed} FUZZ_E2E_WORKERS={opts.workers} "
               f"FUZZ_E2E_REQUESTS={opts.requests}; run folder {out_dir}")
    database = TempDatabase(pg).create()
    broker = None
    try:
        broker = Broker(pg=database.target, env=BROKER_ENV, name="fuzz-e2e").start()
        _run_against(opts, report, broker, database.target, out_dir)
    finally:
        if broker is not None:
            if broker.alive:
                broker.stop()
            report.data["broker_log"] = broker.log_path
        database.drop()
        with open(os.path.join(out_dir, "report.json"), "w") as fh:
            json.dump({**report.data, "failures": report.failures}, fh, indent=1, default=str)
        with open(os.path.join(out_dir, "report.txt"), "w") as fh:
            fh.write(report.text + "\n")
    if report.ok:
        for index in range(opts.workers):
            for name in (f"ring-w{index}.jsonl", f"ledger-w{index}.jsonl"):
                try:
                    os.remove(os.path.join(out_dir, name))
                except OSError:
                    pass
    else:
        rings = [os.path.join(out_dir, f"ring-w{i}.jsonl") for i in range(opts.workers)]
        report.say(f"fuzz-e2e: the last {opts.ring} requests of every worker: {' '.join(rings)}")
        report.say(f"fuzz-e2e: replay one: /usr/bin/python3 {os.path.relpath(__file__, harness_env.REPO_ROOT)} "
                   f"--replay {rings[0]}")
        report.say(f"fuzz-e2e: broker log: {report.data.get('broker_log')}; report: {out_dir}/report.txt")
    return report


def _run_against(opts, report, broker, target, out_dir):
    pid = broker.pid
    rss_start = rss_kib(pid)
    report.data["rss_start_kib"] = rss_start
    report.say(f"fuzz-e2e: broker pid {pid} on {broker.url}, RSS at start {rss_start / KIB:.1f} MiB")

    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    progress = ctx.Value("q", 0)
    per_worker = [opts.requests // opts.workers + (1 if i < opts.requests % opts.workers else 0)
                  for i in range(opts.workers)]
    procs = [ctx.Process(target=worker_main, name=f"fuzz-e2e-w{i}",
                         args=(i, per_worker[i], opts, "127.0.0.1", broker.port, pid, out_dir, stop, progress))
             for i in range(opts.workers)]
    peak = [rss_start or 0]
    sampling = threading.Event()

    def sample():
        while not sampling.wait(RSS_SAMPLE_INTERVAL_S):
            value = rss_kib(pid)
            if value:
                peak[0] = max(peak[0], value)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    for proc in procs:
        proc.start()
    death = None
    last_progress, last_change, last_print = 0, time.monotonic(), time.monotonic()
    try:
        while any(p.is_alive() for p in procs):
            time.sleep(SUPERVISE_INTERVAL_S)
            now = time.monotonic()
            if death is None and not broker.alive:
                death = broker.returncode
                report.fail(f"broker exited during the run (exit code {death}"
                            f"{', signal ' + signal.Signals(-death).name if death and death < 0 else ''}) "
                            f"after about {progress.value} requests")
                stop.set()
            value = progress.value
            if value != last_progress:
                last_progress, last_change = value, now
            elif now - last_change > opts.stall_s and not stop.is_set():
                report.fail(f"no request finished for {opts.stall_s:.0f}s: the broker stopped answering")
                stop.set()
            if now - last_print >= opts.progress_s:
                last_print = now
                keep_fresh(out_dir)
                rss = rss_kib(pid)
                print(f"fuzz-e2e: {value}/{opts.requests} requests, {value / (now - started):.0f} req/s, broker RSS "
                      f"{(rss or 0) / KIB:.1f} MiB", flush=True)
    except KeyboardInterrupt:
        stop.set()
        report.fail("interrupted")
    for proc in procs:
        proc.join(opts.timeout + 30)
        if proc.is_alive():
            proc.kill()
            proc.join()
    elapsed = time.monotonic() - started
    sampling.set()
    sampler.join()

    stats = merge_stats(out_dir, opts.workers)
    rate = stats["done"] / elapsed if elapsed else 0
    report.data.update({"requests_done": stats["done"], "seconds": elapsed, "requests_per_s": rate,
                        "statuses": stats["statuses"], "by_route": stats["by_route"],
                        "incomplete": stats["incomplete"], "mutations": stats["mutations"],
                        "denials": stats["denials"], "connects": stats["connects"], "slow": stats["slow"],
                        "notes": stats["notes"], "samples": stats["samples"],
                        "seconds_by_route": stats["seconds_by_route"]})
    report.say(f"fuzz-e2e: {stats['done']} requests in {elapsed:.1f}s = {rate:.0f} requests/s "
               f"({stats['connects']} connections, {stats['denials']} generated requests refused by the deny list"
               + (f", {stats['skipped']} skipped" if stats["skipped"] else "") + ")")
    report.say("fuzz-e2e: answers by status: " + ", ".join(f"{k}={v}" for k, v in sorted(
        stats["statuses"].items(), key=lambda kv: (-kv[1], kv[0]))))
    report.say("fuzz-e2e: client stopped early on purpose: " + ", ".join(
        f"{k}={v}" for k, v in sorted(stats["incomplete"].items(), key=lambda kv: -kv[1])[:12]))
    busy = sum(stats["seconds_by_route"].values()) or 1
    for route, counts in sorted(stats["by_route"].items()):
        share = 100 * stats["seconds_by_route"].get(route, 0) / busy
        report.say(f"  {route:16} {share:4.1f}% of client time  " +
                   " ".join(f"{k}={v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    if stats["notes"]:
        report.say(f"fuzz-e2e: notes: {dict(stats['notes'])}")
        for note, values in stats["samples"].items():
            report.say(f"  {note}: e.g. {values[:2]}")
    if stats["slow"]:
        report.say(f"fuzz-e2e: {len(stats['slow'])} exchanges took over 5 s, e.g. {stats['slow'][:3]}")
    for index in stats["missing_workers"]:
        report.fail(f"worker {index} left no statistics (it crashed)")
    if stats["stopped"]:
        report.say(f"fuzz-e2e: workers stopped early: {stats['stopped']}")
    if stats["done"] < opts.requests and not report.failures:
        report.fail(f"only {stats['done']} of {opts.requests} requests were sent")
    timeouts = stats["statuses"].get("timeout", 0)
    if timeouts:
        report.say(f"fuzz-e2e: {timeouts} exchanges timed out after {opts.timeout:g}s (no complete answer)")

    # liveness
    alive = broker.alive
    report.data["broker_alive"] = alive
    if not alive:
        if death is None:
            code = broker.returncode
            report.fail(f"broker is not running at the end (exit code {code})")
        report.say("fuzz-e2e: broker log tail:\n" + broker.log_tail(30))
    else:
        with broker.client(timeout=10) as client:
            try:
                health = client.health()
                report.data["health"] = health.status
                if health.status != 200:
                    report.fail(f"GET /health answered {health.status}: {health.body!r:.300}")
                else:
                    report.say(f"fuzz-e2e: GET /health 200 {health.body}")
            except OSError as exc:
                report.fail(f"GET /health failed: {exc!r}")

    # ledger (the spool may still be replaying buffered pushes: poll a while when there are any)
    records, incomplete, unanswered = read_ledger(out_dir, opts.workers)
    replay_wait_s = SPOOL_REPLAY_WAIT_S if alive and any(r["k"] == "buffered" for r in records) else 0
    for _ in attempts(replay_wait_s, interval=SPOOL_REPLAY_POLL_S, max_interval=SPOOL_REPLAY_POLL_S):
        ledger = check_ledger(target, records, incomplete, unanswered)
        # Only buffered items still in the spool can still arrive; anything else is final.
        if not ledger.buffered_missing:
            break
    report.data["ledger"] = {"counts": ledger.counts, "stored": ledger.stored, "missing": ledger.missing[:100],
                             "extra": ledger.extra[:100], "mismatched": ledger.mismatched[:100],
                             "stored_twice": ledger.stored_twice[:100], "queued_twice": ledger.queued_twice[:100],
                             "buffered_missing": ledger.buffered_missing[:100],
                             "failed_but_stored": ledger.failed_but_stored[:100], "ok": ledger.ok}
    report.say("fuzz-e2e: ledger: " + ledger.summary())
    if not ledger.ok:
        report.fail("the stored messages differ from what the broker answered (see the ledger lines above)")

    # a normal client still gets served
    if alive and broker.alive:
        try:
            problem = round_trip(broker, opts.tag)
        except (OSError, KeyError, IndexError, TypeError, AttributeError) as exc:
            problem = repr(exc)
        report.data["round_trip"] = problem or "ok"
        if problem:
            report.fail(f"push + pop + ack round trip: {problem}")
        else:
            report.say("fuzz-e2e: push + pop + ack round trip OK")

    rss_end = rss_kib(pid) if broker.alive else None
    report.data.update({"rss_end_kib": rss_end, "rss_peak_kib": peak[0]})
    limit_kib = opts.rss_limit_mb * KIB
    report.say(f"fuzz-e2e: broker RSS start {(rss_start or 0) / KIB:.1f} MiB, end "
               f"{'-' if rss_end is None else f'{rss_end / KIB:.1f}'} MiB, peak {peak[0] / KIB:.1f} MiB "
               f"(bound {opts.rss_limit_mb} MiB)")
    if rss_end is not None and rss_end >= limit_kib:
        report.fail(f"broker RSS at the end {rss_end / KIB:.1f} MiB >= {opts.rss_limit_mb} MiB")
    report.say("fuzz-e2e: " + ("PASS" if report.ok else f"FAIL ({len(report.failures)} problems)"))


# --- replay ----------------------------------------------------------------------------------------------------
def replay(paths, pg=None, timeout=10.0, stop_at_death=True):
    """Send recorded requests one at a time, in file order, to a fresh broker; report the first that kills it."""
    entries = []
    for path in paths:
        with open(path) as fh:
            entries += [json.loads(line) for line in fh if line.strip()]
    pg = pg or PgTarget.from_env()
    database = TempDatabase(pg).create()
    broker = Broker(pg=database.target, env=BROKER_ENV, name="fuzz-e2e-replay").start()
    killer = None
    try:
        print(f"replay: {len(entries)} requests against {broker.url} (pid {broker.pid})")
        conn = Connection("127.0.0.1", broker.port)
        for entry in entries:
            raw = e2e_requests.decode_raw(entry["raw"])
            reason = e2e_requests.denied(raw)
            if reason:
                print(f"replay: w{entry['worker']}#{entry['seq']} refused by the deny list ({reason}), skipped")
                continue
            plan = tuple(entry["plan"]) if entry["plan"][0] != "split" else ("split", [tuple(c) for c in
                                                                                      entry["plan"][1]])
            outcome = conn.exchange(raw, plan, entry["responses"], head=entry.get("head", False), timeout=timeout)
            conn.close()
            time.sleep(REPLAY_CRASH_WINDOW_S)
            alive = broker.alive
            print(f"replay: w{entry['worker']}#{entry['seq']} {entry['route']} {entry['mutations']} "
                  f"{len(raw)} bytes -> {outcome.status_key}{'' if alive else '  BROKER GONE'}")
            if not alive:
                killer = entry
                print(f"replay: the broker exited with {broker.returncode} after this request; first bytes: "
                      f"{raw[:300]!r}")
                print(broker.log_tail(20))
                if stop_at_death:
                    break
    finally:
        if broker.alive:
            broker.stop()
        database.drop()
    return killer


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replay", nargs="+", metavar="RING_JSONL",
                        help="send recorded requests one by one to a fresh broker")
    args = parser.parse_args(argv)
    if args.replay:
        killer = replay(args.replay)
        return 1 if killer else 0
    def interrupted(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    # A closed terminal or a kill still stops the broker and drops the database (finally blocks).
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    opts = Options.from_env(default_requests=1000000)
    report = run(opts)
    if report.ok and not os.environ.get("QUEEN_TEST_KEEP_TMP"):
        harness_env.remove_session_tmp_dir()
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
