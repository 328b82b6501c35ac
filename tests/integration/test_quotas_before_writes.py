"""Storage quotas are checked before a write (docs/tenants.md, "Storage quotas"): a tenant at its quota whose
writes are refused with 429 does not grow the database or the WAL by what it sent. The reproduction of
issue 34 at its sizes: QUEEN_TENANT_MAX_KV_BYTES at 50 MiB, the tenant filled to it, then 160 PUTs of 8 MiB;
and 826 refused 60 KiB traces at a 10 MiB trace-bytes quota. Checked before, each refusal costs a jsonb parse
and a trigger; checked after the row was written (as before this change) the KV flood wrote its 1.3 GB to
TOAST and WAL and then rolled it back.

The values are random base64, which pglz cannot compress, so a refused value that reached the table would
show at its full size. The module has a database of its own, so the relation sizes are only this test's; the
WAL is the cluster's, shared with whatever else runs on it, so the WAL of this database is read back with
pg_walinspect (the records between two positions that touch a relation of this database).
"""
import base64
import contextlib
import os

import pytest

from harness import Broker

MIB = 1024 * 1024
KV_BYTES_QUOTA = 50 * MIB
KV_VALUE_CHARS = 8_000_000          # an 8 MiB PUT (the JSON string limit is 8 MiB)
REFUSED_PUTS = 160
TRACE_BYTES_QUOTA = 10 * MIB
TRACE_DATA_CHARS = 60 * 1024
REFUSED_TRACES = 826
# What the refused writes may add: the table with its TOAST relation and indexes; the whole database and its
# WAL (the broker's jobs write a little meanwhile: statistics, job runs).
TABLE_GROWTH_BOUND = 1 * MIB
DATABASE_GROWTH_BOUND = 4 * MIB
WAL_BOUND = 4 * MIB
KV_REFUSAL = f"KV bytes quota of the default tenant reached ({KV_BYTES_QUOTA} bytes, QUEEN_TENANT_MAX_KV_BYTES)"
TRACE_REFUSAL = (f"trace bytes quota of the default tenant reached ({TRACE_BYTES_QUOTA} bytes, "
                 "QUEEN_TENANT_MAX_TRACE_BYTES)")


def random_text(chars):
    return base64.b64encode(os.urandom(chars * 3 // 4 + 3)).decode()[:chars]


@pytest.fixture(scope="module")
def db(module_database):
    module_database.execute("CREATE EXTENSION pg_walinspect")
    return module_database


@pytest.fixture(scope="module")
def broker(db):
    instance = Broker(pg=db, name="it-quotas-before-writes", env={
        "QUEEN_TENANT_MAX_KV_BYTES": str(KV_BYTES_QUOTA),
        "QUEEN_TENANT_MAX_TRACE_BYTES": str(TRACE_BYTES_QUOTA),
    }).start()
    yield instance
    instance.stop()


def footprint(db, table):
    """The table with its TOAST relation and indexes, the database, and the WAL position."""
    return db.query(f"""
        SELECT pg_total_relation_size('{table}') AS table_bytes, pg_database_size(current_database()) AS database_bytes,
               pg_current_wal_flush_lsn()::text AS wal_position""")[0]


def database_wal_bytes(db, since, until):
    """Bytes of the WAL records between two positions that touch a relation of this database."""
    if since == until:
        return 0
    return db.scalar("""
        SELECT coalesce(sum(w.record_length), 0)::bigint
          FROM pg_get_wal_records_info(:'since'::pg_lsn, :'until'::pg_lsn) w
         WHERE w.block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%'""",
                     since=since, until=until)


@contextlib.contextmanager
def nothing_written(db, table, what):
    """Asserts the block writes nothing to `table`, the database or its WAL. A physical replication slot keeps
    the WAL from the first position until it is read back: other suites write to the same cluster, and a
    checkpoint meanwhile could otherwise recycle the segment the records start in."""
    slot = f"quota_wal_{os.getpid()}_{table.replace('.', '_')}"
    db.execute(f"SELECT pg_create_physical_replication_slot('{slot}', true)")
    try:
        before = footprint(db, table)
        yield
        assert_nothing_written(db, table, before, what)
    finally:
        db.execute(f"SELECT pg_drop_replication_slot('{slot}')")


def assert_nothing_written(db, table, before, what):
    after = footprint(db, table)
    grown = {"table_bytes": after["table_bytes"] - before["table_bytes"],
             "database_bytes": after["database_bytes"] - before["database_bytes"],
             "database_wal_bytes": database_wal_bytes(db, before["wal_position"], after["wal_position"])}
    print(f"{what}: {table} +{grown['table_bytes']} bytes, database +{grown['database_bytes']} bytes, "
          f"its WAL {grown['database_wal_bytes']} bytes")
    assert grown["table_bytes"] <= TABLE_GROWTH_BOUND, (what, grown)
    assert grown["database_bytes"] <= DATABASE_GROWTH_BOUND, (what, grown)
    assert grown["database_wal_bytes"] <= WAL_BOUND, (what, grown)


def assert_refused(resp, error):
    assert resp.status == 429, resp
    assert resp.body == {"error": error}, resp.body
    assert resp.header("Retry-After") == "60", resp.headers


def test_refused_kv_puts_at_the_bytes_quota_write_nothing(broker, db):
    value = random_text(KV_VALUE_CHARS)
    with broker.client(timeout=120.0) as client:
        assert client.put("/api/v1/kv/small", {"value": 1}).status == 200
        accepted = 0
        while True:
            resp = client.put(f"/api/v1/kv/fill-{accepted}", data=f'{{"value": "{value}"}}')
            if resp.status != 200:
                assert_refused(resp, KV_REFUSAL)
                break
            accepted += 1
            assert accepted * KV_VALUE_CHARS <= KV_BYTES_QUOTA, "the quota did not refuse at 50 MiB"
        assert accepted == KV_BYTES_QUOTA // (KV_VALUE_CHARS + 64), accepted  # 6 values (key + jsonb header each)

        with nothing_written(db, "queen.kv", f"{REFUSED_PUTS} refused 8 MiB PUTs"):
            for i in range(REFUSED_PUTS):
                assert_refused(client.put(f"/api/v1/kv/refused-{i}", data=f'{{"value": "{value}"}}'), KV_REFUSAL)
            # A larger value for a stored key (INSERT ... ON CONFLICT DO UPDATE) is refused before writing too.
            assert_refused(client.put("/api/v1/kv/small", data=f'{{"value": "{value}"}}'), KV_REFUSAL)

        stored = client.get("/api/v1/kv/fill-0")
        assert stored.status == 200 and stored.body["value"] == value
        assert client.get("/api/v1/kv/small").body["value"] == 1
        assert client.get("/api/v1/kv/refused-0").status == 404
    assert db.query("""SELECT u.kv_keys, u.kv_bytes FROM queen.tenant_usage_of('') u""") == \
        db.query("""SELECT count(*) AS kv_keys, sum(counted_bytes)::bigint AS kv_bytes FROM queen.kv WHERE tenant = ''""")


def test_refused_traces_at_the_trace_bytes_quota_write_nothing(broker, db):
    data = {"blob": random_text(TRACE_DATA_CHARS)}
    with broker.client(timeout=60.0) as client:
        pushed = client.push([{"queue": "traced", "transactionId": "m1"}])
        assert pushed.status == 201, pushed
        trace = {"transactionId": "m1", "partitionId": pushed.body[0]["partition_id"], "data": data}
        accepted = 0
        while True:
            resp = client.post("/api/v1/traces", trace)
            if resp.status != 201:
                assert_refused(resp, TRACE_REFUSAL)
                break
            accepted += 1
            assert accepted * TRACE_DATA_CHARS <= TRACE_BYTES_QUOTA, "the quota did not refuse at 10 MiB"
        assert accepted == TRACE_BYTES_QUOTA // (TRACE_DATA_CHARS + 64), accepted  # 170 traces

        with nothing_written(db, "queen.message_traces", f"{REFUSED_TRACES} refused 60 KiB traces"):
            for _ in range(REFUSED_TRACES):
                assert_refused(client.post("/api/v1/traces", trace), TRACE_REFUSAL)
    assert db.query("SELECT u.traces, u.trace_bytes FROM queen.tenant_usage_of('') u") == \
        db.query("SELECT count(*) AS traces, sum(counted_bytes)::bigint AS trace_bytes FROM queen.message_traces")
