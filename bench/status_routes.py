#!/usr/bin/python3
"""Status scenario: every status, resources and analytics route timed against a broker (stdlib only).

Run by `make bench` on the history database (10 million messages, bench/history.sql). First one
POST /api/v1/stats/refresh (timed apart: it is the reconciler's work, not a route a dashboard polls), then
each route --samples times over one keep-alive connection; prints p50 and max per route and the conditions
(messages, queues, partitions from /resources/overview), and marks a route whose p50 is over --budget-ms.
Exit status 1 when a route answers anything but 200, or the broker dies.

  bench/status_routes.py --url http://127.0.0.1:6632 --queue bench-history-hot --samples 20
"""
import argparse
import http.client
import json
import sys
import time
import urllib.parse


def percentile(values, p):
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def routes(queue):
    q = urllib.parse.quote(queue, safe="")
    return [
        "/api/v1/resources/overview",
        "/api/v1/resources/queues",
        f"/api/v1/resources/queues/{q}",
        "/api/v1/resources/namespaces",
        "/api/v1/resources/tasks",
        "/api/v1/status",
        "/api/v1/status?from=" + urllib.parse.quote(time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                 time.gmtime(time.time() - 7 * 86400))),
        "/api/v1/status/queues",
        f"/api/v1/status/queues/{q}?includePartitions=true",
        f"/api/v1/status/queues/{q}/messages",
        "/api/v1/status/analytics",
        "/api/v1/analytics/system-metrics",
        "/api/v1/analytics/worker-metrics",
        "/api/v1/analytics/postgres-stats",
        "/api/v1/analytics/queue-lag",
        "/api/v1/analytics/queue-ops",
        "/api/v1/analytics/queue-parked-replicas",
        "/api/v1/analytics/retention",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True)
    parser.add_argument("--queue", required=True, help="the queue of the per-queue routes")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--budget-ms", type=float, default=100.0)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    target = urllib.parse.urlparse(args.url)
    conn = http.client.HTTPConnection(target.hostname, target.port, timeout=120)

    def call(method, path):
        started = time.perf_counter()
        conn.request(method, path, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        body = resp.read()
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if resp.status != 200:
            raise SystemExit(f"status: {method} {path} answered {resp.status}: {body[:200]!r}")
        return elapsed_ms, json.loads(body)

    # A refresh is bounded by a time budget (stalest queues first): repeat until every queue got one.
    queues = call("GET", "/api/v1/resources/overview")[1]["queues"]
    refresh_ms, refresh, refreshed = 0.0, {}, 0
    while not refresh.get("complete") and refreshed < queues:
        took, refresh = call("POST", "/api/v1/stats/refresh")
        refresh_ms += took
        refreshed += refresh.get("queuesRefreshed", 0)
    refresh["queuesRefreshed"] = refreshed
    _, overview = call("GET", "/api/v1/resources/overview")
    conditions = {"messages": overview["messages"]["total"], "queues": overview["queues"],
                  "partitions": overview["partitions"], "refreshMs": round(refresh_ms, 1), "refresh": refresh}
    print(f"status   conditions: {conditions['messages']:,} messages, {conditions['queues']} queues, "
          f"{conditions['partitions']:,} partitions; POST /api/v1/stats/refresh took {refresh_ms:.0f} ms "
          f"({refresh.get('queuesRefreshed')} queues)")

    results = []
    over = 0
    for path in routes(args.queue):
        call("GET", path)  # warm: prepared statement and plan on this connection
        times = [call("GET", path)[0] for _ in range(args.samples)]
        p50, worst = percentile(times, 50), max(times)
        flag = "" if p50 <= args.budget_ms else f"  OVER {args.budget_ms:.0f} ms"
        over += 1 if flag else 0
        print(f"status   {path:<70} p50 {p50:7.1f} ms  max {worst:7.1f} ms{flag}")
        results.append({"route": path, "p50Ms": round(p50, 2), "maxMs": round(worst, 2), "samples": args.samples})
    print(f"status   {len(results)} routes, {over} over the {args.budget_ms:.0f} ms budget at p50")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"scenario": "status", "conditions": conditions, "routes": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
