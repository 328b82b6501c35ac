"""Work shared through PostgreSQL rather than the mesh (docs/operations-ha.md, "Single-runner jobs"): single-runner jobs
elected per cycle by an advisory lock, and KV values whose TTL every broker honours."""
import time
import urllib.parse

from ha_support import database_now_ms, job_runs_of, kv_row_count
from harness import poll_until, unique_name
from harness.assertions import parse_iso

JOB_PERIOD_MS = 1000
JOB_ENV = {"RETENTION_INTERVAL": JOB_PERIOD_MS, "STATS_RECONCILE_INTERVAL_MS": JOB_PERIOD_MS}
CHECKED_JOBS = ("retention", "stats_reconcile")
OBSERVED_CYCLES = 6
# started_at and the cycle are read from the same clock a few microseconds apart.
CYCLE_EDGE_TOLERANCE_MS = 50
# The test's clock and the database's are the same host clock; this covers rounding only.
EXPIRY_CLOCK_TOLERANCE_MS = 20


def missing_cycles(runs, job, first, last):
    done = {r["cycle"] for r in runs if r["job"] == job}
    return [cycle for cycle in range(first, last + 1) if cycle not in done]


def test_with_three_brokers_every_job_cycle_runs_exactly_once(mesh_factory, ha_db):
    brokers = mesh_factory(3, env=JOB_ENV)
    server_ids = [b.name for b in brokers]
    # The first whole cycle after all three brokers are up, and the next few.
    first = int(database_now_ms(ha_db) // JOB_PERIOD_MS) + 1
    last = first + OBSERVED_CYCLES - 1

    def every_job_past_the_window():
        runs = job_runs_of(ha_db, server_ids)
        return runs if all(any(r["job"] == job and r["cycle"] > last for r in runs) for job in CHECKED_JOBS) else None

    runs = poll_until(every_job_past_the_window, timeout=OBSERVED_CYCLES * JOB_PERIOD_MS / 1000 + 15,
                      what=f"jobs {CHECKED_JOBS} recorded past cycle {last}")
    for job in CHECKED_JOBS:
        assert missing_cycles(runs, job, first, last) == [], f"{job}: cycles that no broker ran"
    # (job, cycle) is the primary key, so no cycle can be recorded twice; each run started inside its own cycle.
    outside = [r for r in runs
               if r["job"] in CHECKED_JOBS
               and not (r["cycle"] * JOB_PERIOD_MS <= r["started_ms"]
                       < (r["cycle"] + 1) * JOB_PERIOD_MS + CYCLE_EDGE_TOLERANCE_MS)]
    assert outside == []


def kv_path(key):
    return "/api/v1/kv/" + urllib.parse.quote(key, safe="")


def test_a_kv_value_set_on_one_broker_expires_on_every_broker(mesh_factory, ha_db):
    a, b = mesh_factory(2)
    key, ttl_ms = unique_name("ha-kv"), 3000
    value = {"n": 1, "tags": ["x", "y"], "nested": {"ok": True}}
    with a.client() as ca, b.client() as cb:
        put = ca.put(kv_path(key), {"value": value, "ttlMs": ttl_ms})
        assert put.status in (200, 201, 204), put
        db_now = database_now_ms(ha_db)
        for client in (cb, ca):
            got = client.get(kv_path(key))
            assert got.status == 200, got
            assert got.body["key"] == key and got.body["value"] == value, got.body
            expires_ms = parse_iso(got.body["expiresAt"]).timestamp() * 1000
            assert db_now < expires_ms <= db_now + ttl_ms + 1, got.body

        absent_asked_at = []  # wall clock ms at which a read that answered 404 was sent

        def absent_on(client):
            asked = time.time() * 1000
            if client.get(kv_path(key)).status != 404:
                return False
            absent_asked_at.append(asked)
            return True

        poll_until(lambda: absent_on(cb) and absent_on(ca), timeout=ttl_ms / 1000 + 5, interval=0.05,
                   what=f"{key} expired on both brokers")
        assert min(absent_asked_at) >= expires_ms - EXPIRY_CLOCK_TOLERANCE_MS, "the value vanished before its TTL"
        # Expired reads as absent at once; deleting the row is the sweepers' housekeeping.
        poll_until(lambda: kv_row_count(ha_db, key) == 0, timeout=10, what=f"the expired row {key} pruned")

        # Without a TTL a value stays until deleted, and a delete on one broker is seen on the other.
        lasting = unique_name("ha-kv-lasting")
        assert cb.put(kv_path(lasting), {"value": [1, 2, 3]}).status in (200, 201, 204)
        got = ca.get(kv_path(lasting))
        assert got.status == 200 and got.body["value"] == [1, 2, 3] and got.body["expiresAt"] is None, got
        deleted = ca.delete(kv_path(lasting))
        assert deleted.status in (200, 204), deleted
        assert cb.get(kv_path(lasting)).status == 404
