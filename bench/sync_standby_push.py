#!/usr/bin/python3
"""What a synchronous standby costs in push throughput (docs/operations-ha.md, "Synchronous replication").

Starts a durable primary (fsync=on, synchronous_commit=on) and a streaming standby on loopback ports (throwaway
clusters of the test harness; the standby made by pg_basebackup -R), one broker on the primary, then runs
queen-bench's push scenario (default: batch 100, 10 connections, 10 partitions, 10 s) alternately with the standby
synchronous (`synchronous_standby_names` naming it) and asynchronous (empty), --rounds times each. The switch is
ALTER SYSTEM + pg_reload_conf(), checked in pg_stat_replication before each run. Prints one line per run and the
figures as JSON with --json.

  bench/sync_standby_push.py --bench build/queen-bench --broker build/queen-broker --rounds 2
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "failover"))

from harness import Broker, PgCluster, poll_until  # noqa: E402
from failover_support import STANDBY_NAME, StandbyCluster  # noqa: E402

MODES = {"sync": STANDBY_NAME, "async": ""}


def set_mode(primary, mode):
    primary.target.execute(f"alter system set synchronous_standby_names = '{MODES[mode]}'; select pg_reload_conf();")
    poll_until(lambda: primary.target.scalar(
        "select sync_state from pg_stat_replication where application_name = :'name'", name=STANDBY_NAME) == mode,
        timeout=30, what=f"the standby {mode}")


def run_push(bench, url, batch, duration_s, json_path):
    subprocess.run([bench, "--url", url, "--scenario", "push", "--batches", str(batch), "--duration", str(duration_s),
                    "--json", json_path], check=True, stdout=subprocess.DEVNULL)
    with open(json_path) as fh:
        report = json.load(fh)
    push = [r for r in report["scenarios"] if r["scenario"] == "push"]
    return push[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "queen-bench"))
    parser.add_argument("--broker", default=os.path.join(ROOT, "build", "queen-broker"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ["QUEEN_BROKER_BIN"] = args.broker

    primary = PgCluster(durable=True, settings={"wal_level": "replica", "max_wal_senders": 4})
    standby = None
    broker = None
    figures = []
    try:
        primary.create()
        standby = StandbyCluster(primary).create()
        broker = Broker(pg=primary.target, name="sync-bench", env={"LOG_LEVEL": "warn"}).start()
        json_path = os.path.join(os.path.dirname(primary.data_dir), "push.json")
        for round_index in range(args.rounds):
            for mode in ("sync", "async") if round_index % 2 == 0 else ("async", "sync"):
                set_mode(primary, mode)
                result = run_push(args.bench, broker.url, args.batch, args.duration, json_path)
                figure = {"round": round_index + 1, "standby": mode, "batch": args.batch,
                          "messagesPerSecond": round(result["messagesPerSecond"]), "errors": result["errors"],
                          "p50Ms": result["latency"]["p50Ms"], "p99Ms": result["latency"]["p99Ms"]}
                figures.append(figure)
                print(json.dumps(figure), flush=True)
    finally:
        if broker:
            broker.stop()
        if standby:
            standby.destroy()
        primary.destroy()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(figures, fh, indent=2)


if __name__ == "__main__":
    main()
