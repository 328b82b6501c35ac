#!/usr/bin/python3
"""Spool drain: how fast a broker replays its spool into PostgreSQL once the database is usable again.

Against a running broker of its own (it switches push maintenance on and off, so never a shared one):
  1. POST /api/v1/system/maintenance {"enabled": true}: every push goes to the spool, the drain is paused;
  2. --events events pushed over --partitions partitions of a fresh queue, --push-batch items per request,
     --connections requests in flight; every item must come back `buffered`;
  3. maintenance off, then GET /api/v1/status/buffers every --poll-ms until nothing is pending;
  4. prints events/s (events / time from "maintenance off" to "pending 0"), the conditions (replay batch size,
     replay lanes, events per file, partitions) and the broker's RSS; --json writes the same figures.
Exit status 1 when an item is not buffered, an event ends in failed/, or the drain does not finish in --timeout-s.

  bench/spool_drain.py --url http://127.0.0.1:6632 --broker-pid PID --max-batch 100 --lanes 4
"""
import argparse
import concurrent.futures
import json
import os
import sys
import time
import urllib.request


def proc_memory_mb(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) / 1024.0
    except OSError:
        return None
    return fields


class Broker:
    def __init__(self, url):
        self.url = url.rstrip("/")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def maintenance(self, enabled):
        self.call("POST", "/api/v1/system/maintenance", {"enabled": enabled})

    def buffers(self):
        return self.call("GET", "/api/v1/status/buffers")


def spool_events(broker, queue, args):
    requests = args.events // args.push_batch

    def push(i):
        # Item k of the whole run goes to partition k mod P: every request spreads over the partitions.
        items = [{"queue": queue, "partition": f"p{(i * args.push_batch + j) % args.partitions}",
                  "transactionId": f"{queue}-{i}-{j}", "payload": {"i": i, "j": j}} for j in range(args.push_batch)]
        return broker.call("POST", "/api/v1/push", {"items": items})

    statuses = {}
    with concurrent.futures.ThreadPoolExecutor(args.connections) as pool:
        for answer in pool.map(push, range(requests)):
            for item in answer:
                statuses[item["status"]] = statuses.get(item["status"], 0) + 1
    return requests * args.push_batch, statuses


def wait_drained(broker, args):
    started = time.monotonic()
    broker.maintenance(False)
    while True:
        status = broker.buffers()
        if not status.get("pending"):
            return time.monotonic() - started, status
        if time.monotonic() - started > args.timeout_s:
            return None, status
        time.sleep(args.poll_ms / 1000.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:6632")
    parser.add_argument("--broker-pid", type=int)
    parser.add_argument("--events", type=int, default=50000)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--push-batch", type=int, default=100)
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--poll-ms", type=int, default=20)
    parser.add_argument("--timeout-s", type=float, default=120)
    # The broker's settings, echoed in the report (the bench script starts the broker with them).
    parser.add_argument("--max-batch", type=int, default=100, help="the broker's FILE_BUFFER_MAX_BATCH")
    parser.add_argument("--lanes", type=int, default=4, help="the broker's FILE_BUFFER_REPLAY_LANES")
    parser.add_argument("--events-per-file", type=int, default=10000, help="the broker's FILE_BUFFER_EVENTS_PER_FILE")
    parser.add_argument("--label", action="append", default=[])
    parser.add_argument("--json")
    args = parser.parse_args()

    broker = Broker(args.url)
    queue = f"bench-spool-drain-{int(time.time() * 1000)}"
    broker.maintenance(True)
    try:
        spool_started = time.monotonic()
        events, statuses = spool_events(broker, queue, args)
        spool_s = time.monotonic() - spool_started
    except Exception:
        broker.maintenance(False)
        raise
    pending = broker.buffers().get("pending")
    drain_s, final = wait_drained(broker, args)
    memory = proc_memory_mb(args.broker_pid) if args.broker_pid else None

    figures = {
        "scenario": "spool-drain", "events": events, "partitions": args.partitions, "replay_batch": args.max_batch,
        "replay_lanes": args.lanes, "events_per_file": args.events_per_file, "cores": os.cpu_count(),
        "labels": args.label, "push_statuses": statuses, "pending_before_drain": pending,
        "spool_s": round(spool_s, 3), "drain_s": None if drain_s is None else round(drain_s, 3),
        "events_per_s": None if not drain_s else round(events / drain_s), "failed": final.get("failed"),
        "broker_rss_mb": memory,
    }
    print(f"spool-drain: {os.cpu_count()} cores, {' '.join(args.label)}")
    print(f"spool-drain: {events} events over {args.partitions} partitions spooled in {spool_s:.2f}s "
          f"({statuses}); replay batch {args.max_batch} events per transaction, {args.lanes} lanes, "
          f"{args.events_per_file} events per file")
    if drain_s is None:
        print(f"spool-drain: not drained within {args.timeout_s}s: {final}", file=sys.stderr)
    else:
        print(f"spool-drain: drained in {drain_s:.2f}s = {events / drain_s:.0f} events/s "
              f"(poll every {args.poll_ms} ms); failed {final.get('failed')}")
    if memory:
        print(f"spool-drain: broker RSS {memory.get('VmRSS', 0):.1f} MB (peak {memory.get('VmHWM', 0):.1f} MB)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    ok = drain_s is not None and statuses == {"buffered": events} and not final.get("failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
