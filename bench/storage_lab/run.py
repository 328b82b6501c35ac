#!/usr/bin/env python3
"""The storage lab (README.md beside this file): pgbench drives each candidate layout's push statement against
a scratch database of the project PostgreSQL, and this measures what PostgreSQL spends per message: CPU of the
whole cluster (postmaster, its children, reaped children), WAL bytes, and bytes the tables and indexes grew.

    bench/storage_lab/run.py [--seconds 12] [--rounds 2] [--batches 100,10,1] [--variants rows,segments_text]

Variants run interleaved, round by round, so each sees the same moments of a shared machine; the table shows
the median of the rounds.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VARIANTS = ["rows", "segments_jsonb", "segments_text", "segments_keyed", "segments_gin", "segments_scanned",
            "engine_rows", "engine_segments"]
# The relations each variant writes (table, its TOAST and indexes are counted by pg_total_relation_size).
RELATIONS = {"rows": ["lab.rows"], "segments_jsonb": ["lab.segments_jsonb"], "segments_text": ["lab.segments_text"],
             "segments_keyed": ["lab.segments_keyed", "lab.dedup_keys"], "segments_gin": ["lab.segments_gin"],
             "segments_scanned": ["lab.segments_scanned"], "engine_rows": ["queen.messages"],
             "engine_segments": ["queen.segments"]}
HZ = os.sysconf("SC_CLK_TCK")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=int(os.environ.get("PGPORT", "55432")))
    ap.add_argument("--db", default="queen_storage_lab")
    ap.add_argument("--pgdata", default=os.path.join(ROOT, ".pgdata"), help="the cluster's data directory (CPU)")
    ap.add_argument("--seconds", type=int, default=12, help="pgbench duration per variant, batch and round")
    ap.add_argument("--warmup", type=int, default=3, help="unmeasured seconds after each run's checkpoint")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--batches", default="100,10,1")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--partitions", type=int, default=200)
    ap.add_argument("--inputs", type=int, default=1000, help="pre-built pushes per batch size")
    ap.add_argument("--window", type=int, default=1000, help="messages segments_scanned probes per push")
    ap.add_argument("--payload-bytes", type=int, default=64, help="the filler of each payload (bench's default)")
    args = ap.parse_args()
    args.batches = [int(b) for b in args.batches.split(",")]
    args.variants = args.variants.split(",")
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        ap.error(f"unknown variants {sorted(unknown)}; known: {VARIANTS}")
    if any(b not in (1, 10, 100) for b in args.batches):
        ap.error("batches are among 1, 10, 100 (the pre-built inputs)")
    return args


class Cluster:
    def __init__(self, args):
        self.args = args
        self.env = {**os.environ, "PGPASSWORD": os.environ.get("PGPASSWORD", "postgres")}

    def psql(self, sql, db=None, variables=None):
        cmd = ["psql", "-h", "127.0.0.1", "-p", str(self.args.port), "-U", "postgres", "-d", db or self.args.db,
               "-v", "ON_ERROR_STOP=1", "-qAt"]
        for name, value in (variables or {}).items():
            cmd += ["-v", f"{name}={value}"]
        return subprocess.run(cmd, input=sql, capture_output=True, text=True, env=self.env, check=True).stdout.strip()

    def cpu_seconds(self):
        """CPU of the postmaster, its live children and the children it reaped."""
        root = int(open(os.path.join(self.args.pgdata, "postmaster.pid")).readline())
        total = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(pid) == root:
                total += sum(int(f) for f in fields[11:15])
            elif int(fields[1]) == root:
                total += int(fields[11]) + int(fields[12])
        return total / HZ


def setup(cluster, args):
    if cluster.psql(f"SELECT 1 FROM pg_database WHERE datname = '{args.db}'", db="postgres") != "1":
        cluster.psql(f"CREATE DATABASE {args.db}", db="postgres")
    cluster.psql(open(os.path.join(HERE, "setup.sql")).read(),
                 variables={"partitions": args.partitions, "inputs": args.inputs, "payload_bytes": args.payload_bytes})
    if any(v.startswith("engine_") for v in args.variants):
        # the engine variants call this tree's procedures: the project's migrations, deployed as `make db` does
        subprocess.run([os.path.join(ROOT, "scripts", "db-deploy.sh")], check=True, capture_output=True,
                       env={**cluster.env, "PG_DB": args.db, "PGPORT": str(args.port)})
        cluster.psql(open(os.path.join(HERE, "engine_setup.sql")).read(), variables={"partitions": args.partitions})


def pgbench(cluster, args, variant, batch, seconds):
    out = subprocess.run(
        ["pgbench", "-h", "127.0.0.1", "-p", str(args.port), "-U", "postgres", "-n", "-M", "prepared",
         "-c", str(args.clients), "-j", "1", "-T", str(seconds), "-D", f"b={batch}",
         "-D", f"partitions={args.partitions}", "-D", f"inputs={args.inputs}", "-D", f"window={args.window}",
         "-f", os.path.join(HERE, f"{variant}.sql"), args.db],
        capture_output=True, text=True, env=cluster.env)
    if out.returncode != 0:
        sys.exit(f"storage_lab: pgbench {variant} b={batch} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def run_one(cluster, args, variant, batch):
    # After a checkpoint the first change of every page writes its full image; the warm-up takes those of the
    # pages every push touches (counter rows, right-most index pages), as a steady state between checkpoints has.
    cluster.psql("CHECKPOINT")
    pgbench(cluster, args, variant, batch, args.warmup)
    sizes = "+".join(f"pg_total_relation_size('{r}')" for r in RELATIONS[variant])
    lsn0, size0 = cluster.psql(f"SELECT pg_current_wal_insert_lsn() || ' ' || ({sizes})").split()
    cpu0 = cluster.cpu_seconds()
    started = time.monotonic()
    out = pgbench(cluster, args, variant, batch, args.seconds)
    elapsed = time.monotonic() - started
    cpu = cluster.cpu_seconds() - cpu0
    after = cluster.psql(f"SELECT (pg_current_wal_insert_lsn() - '{lsn0}'::pg_lsn)::bigint || ' ' || ({sizes})")
    wal, size1 = (int(x) for x in after.split())
    line = next(l for l in out.splitlines() if "number of transactions actually processed" in l)
    messages = int(line.split(":")[1].split("/")[0]) * batch
    return {"msgs_per_s": messages / elapsed, "pg_us": 1e6 * cpu / messages, "wal_b": wal / messages,
            "disk_b": (size1 - int(size0)) / messages}


def main():
    args = parse_args()
    cluster = Cluster(args)
    setup(cluster, args)
    results = {}
    for _ in range(args.rounds):
        for batch in args.batches:
            for variant in args.variants:
                results.setdefault((variant, batch), []).append(run_one(cluster, args, variant, batch))
    print(f"{'variant':<16} {'batch':>5} {'msg/s':>9} {'pg_us':>8} {'wal_B':>7} {'disk_B':>7}   (median of {args.rounds})")
    for batch in args.batches:
        for variant in args.variants:
            runs = results[(variant, batch)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"{variant:<16} {batch:>5} {med['msgs_per_s']:>9,.0f} {med['pg_us']:>8.1f} {med['wal_b']:>7.0f} "
                  f"{med['disk_b']:>7.0f}")


if __name__ == "__main__":
    main()
