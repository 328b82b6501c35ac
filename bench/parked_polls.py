#!/usr/bin/python3
"""Parked long polls: N long polls held open on one broker while /health and pushes are timed.

Measures, against a running broker (stdlib only, one process):
  1. idle baseline: p50/p99 of GET /health and of a one-item push, each over --samples requests;
  2. N long polls parked over --queues queues (GET /api/v1/pop/queue/<q>?wait=true&timeout=...),
     held by one selector loop; waits until the broker's queen_parked_pops gauge shows them all;
  3. the same /health and push figures with the polls parked, and the ratio to the baseline;
  4. wake latency: a push to one queue -> the first answer on a poll of that queue, over --wakes queues;
  5. broker RSS (VmRSS, VmHWM) and thread count before, while parked and after.
Exit status 1 when a poll is lost (never answered after its wake, or answered with an error), or the
broker dies. The latency ratio is printed, not asserted: a benchmark reports what it measured.

  bench/parked_polls.py --url http://127.0.0.1:6632 --broker-pid PID --polls 10000
"""
import argparse
import json
import os
import resource
import selectors
import socket
import statistics
import sys
import threading
import time
import urllib.parse


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def proc_status(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
    except OSError:
        return None
    return {"rss_mb": int(fields["VmRSS"].split()[0]) / 1024.0,
            "hwm_mb": int(fields["VmHWM"].split()[0]) / 1024.0,
            "threads": int(fields["Threads"])}


class Http:
    """One keep-alive connection, blocking, with Content-Length framing only."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def request(self, method, path, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n" \
               f"Content-Length: {len(data)}\r\n\r\n"
        self.sock.sendall(head.encode() + data)
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            rest += chunk
        self.buffer = rest[length:]
        return status, rest[:length]


def timed(samples, call):
    latencies = []
    for _ in range(samples):
        started = time.perf_counter()
        call()
        latencies.append((time.perf_counter() - started) * 1000.0)
    return latencies


def measure(http, samples, push_queue):
    def health():
        status, _ = http.request("GET", "/health")
        assert status == 200, status

    def push():
        status, body = http.request("POST", "/api/v1/push",
                                    {"items": [{"queue": push_queue, "payload": {"bench": True}}]})
        assert status in (200, 201), (status, body[:200])

    return {"health": timed(samples, health), "push": timed(samples, push)}


def parked_gauge(http):
    status, body = http.request("GET", "/metrics/prometheus")
    if status != 200:
        return -1
    for line in body.decode().splitlines():
        if line.startswith("queen_parked_pops"):
            return int(float(line.split()[-1]))
    return -1


class Poller(threading.Thread):
    """Holds the parked polls: one non-blocking socket each, read by one selector."""

    def __init__(self, host, port, paths):
        super().__init__(daemon=True)
        self.host, self.port, self.paths = host, port, paths
        self.selector = selectors.DefaultSelector()
        self.answers = {}  # poll index -> (status, monotonic time)
        self.lock = threading.Lock()
        self.stop = False
        self.opened = 0

    def open_all(self):
        for index, path in enumerate(self.paths):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.connect((self.host, self.port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, [index, b""])
            self.opened += 1

    def run(self):
        while not self.stop:
            for key, _ in self.selector.select(timeout=0.2):
                data = key.data
                try:
                    chunk = key.fileobj.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                now = time.monotonic()
                if not chunk:
                    self.record(data[0], 0, now)
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()
                    continue
                data[1] += chunk
                if b"\r\n\r\n" in data[1] and data[0] not in self.answers:
                    self.record(data[0], int(data[1].split(b" ", 2)[1]), now)

    def record(self, index, status, now):
        with self.lock:
            self.answers.setdefault(index, (status, now))

    def close_all(self):
        self.stop = True
        self.join(timeout=5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def summary(latencies):
    return {"p50_ms": round(percentile(latencies, 50), 2), "p99_ms": round(percentile(latencies, 99), 2),
            "mean_ms": round(statistics.mean(latencies), 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:6632")
    parser.add_argument("--broker-pid", type=int, default=0)
    parser.add_argument("--polls", type=int, default=10000)
    parser.add_argument("--queues", type=int, default=100)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--wakes", type=int, default=20)
    parser.add_argument("--poll-timeout-ms", type=int, default=120000)
    parser.add_argument("--park-wait-s", type=float, default=90)
    parser.add_argument("--json", default="")
    args = parser.parse_args()

    url = urllib.parse.urlparse(args.url)
    host, port = url.hostname, url.port or 80
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.polls + 1024
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(wanted, soft), max(wanted, hard)))

    run_id = f"{int(time.time())}-{os.getpid()}"
    queues = [f"parked-{run_id}-{i}" for i in range(args.queues)]
    push_queue = f"parked-{run_id}-push"
    http = Http(host, port)
    for queue in queues + [push_queue]:
        status, body = http.request("POST", "/api/v1/configure", {"queue": queue})
        assert status in (200, 201), (status, body[:200])

    figures = {"polls": args.polls, "queues": args.queues, "samples": args.samples,
               "cores": os.cpu_count(), "broker_before": proc_status(args.broker_pid)}
    measure(http, 50, push_queue)  # warm-up
    idle = measure(http, args.samples, push_queue)
    figures["idle"] = {name: summary(values) for name, values in idle.items()}

    paths = [f"/api/v1/pop/queue/{queues[i % args.queues]}?wait=true&timeout={args.poll_timeout_ms}"
             for i in range(args.polls)]
    poller = Poller(host, port, paths)
    started = time.monotonic()
    poller.open_all()
    poller.start()
    parked = 0
    while time.monotonic() - started < args.park_wait_s:
        parked = parked_gauge(http)
        if parked >= args.polls:
            break
        time.sleep(0.25)
    figures["park_seconds"] = round(time.monotonic() - started, 2)
    figures["parked_gauge"] = parked
    figures["answered_before_wake"] = len(poller.answers)
    if parked < args.polls:
        print(f"parked-polls: only {parked} of {args.polls} polls parked after {args.park_wait_s}s", file=sys.stderr)
    figures["broker_parked"] = proc_status(args.broker_pid)

    loaded = measure(http, args.samples, push_queue)
    figures["parked"] = {name: summary(values) for name, values in loaded.items()}
    figures["ratio_p99"] = {name: round(figures["parked"][name]["p99_ms"] / figures["idle"][name]["p99_ms"], 2)
                            for name in ("health", "push")}

    # Wake: one push per queue; the first answer on any poll of that queue ends the measurement.
    wake_latencies, lost = [], 0
    for w in range(min(args.wakes, args.queues)):
        members = set(range(w, args.polls, args.queues))
        with poller.lock:
            before = {i for i in members if i in poller.answers}
        sent = time.monotonic()
        status, _ = http.request("POST", "/api/v1/push", {"items": [{"queue": queues[w], "payload": {"w": w}}]})
        assert status in (200, 201), status
        answered = None
        while time.monotonic() - sent < 10 and answered is None:
            with poller.lock:
                fresh = [poller.answers[i] for i in members if i in poller.answers and i not in before]
            answered = next((a for a in fresh if a[0] == 200), None)
            if answered is None:
                time.sleep(0.0005)
        if answered is None:
            lost += 1
        else:
            wake_latencies.append((answered[1] - sent) * 1000.0)
    figures["wake"] = summary(wake_latencies) if wake_latencies else {}
    figures["wakes_lost"] = lost
    with poller.lock:
        errors = sum(1 for status, _ in poller.answers.values() if status not in (200, 204))
    figures["poll_errors"] = errors
    figures["broker_after"] = proc_status(args.broker_pid)
    poller.close_all()

    alive = args.broker_pid == 0 or proc_status(args.broker_pid) is not None
    print(f"parked-polls: {args.polls} long polls over {args.queues} queues on {os.cpu_count()} cores; "
          f"{figures['parked_gauge']} parked in {figures['park_seconds']} s")
    for phase in ("idle", "parked"):
        f = figures[phase]
        print(f"parked-polls: {phase:6s} /health p50 {f['health']['p50_ms']} ms p99 {f['health']['p99_ms']} ms; "
              f"push p50 {f['push']['p50_ms']} ms p99 {f['push']['p99_ms']} ms ({args.samples} samples each)")
    print(f"parked-polls: p99 ratio parked/idle: /health {figures['ratio_p99']['health']}x, "
          f"push {figures['ratio_p99']['push']}x")
    if figures["wake"]:
        print(f"parked-polls: wake push->answer p50 {figures['wake']['p50_ms']} ms "
              f"p99 {figures['wake']['p99_ms']} ms over {len(wake_latencies)} queues; lost {lost}")
    for label in ("broker_before", "broker_parked", "broker_after"):
        s = figures[label]
        if s:
            print(f"parked-polls: {label}: RSS {s['rss_mb']:.1f} MB (peak {s['hwm_mb']:.1f} MB), {s['threads']} threads")
    print(f"parked-polls: answered before any wake {figures['answered_before_wake']}, poll errors {errors}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    failed = lost > 0 or errors > 0 or not alive or parked < args.polls
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
