"""The table_statistics job (docs/timers-kv-jobs.md): once a table holds twice the rows its planner statistics
counted (plus 1,000), one broker analyzes it within a job period, so the plans its connections made while the table
looked empty are replaced long before autovacuum's next visit."""
import pytest

from harness import Broker, poll_until, unique_name

PERIOD_MS = 300


@pytest.fixture
def own_db(temp_database):
    return temp_database().target


def counted_rows(pg, table):
    return pg.scalar("select reltuples::float8 as n from pg_class where oid = :'t'::regclass", t=table)


def analyzed_by_the_job(pg, table):
    return pg.scalar("""select count(*) as n from queen.job_runs
                         where job = 'table_statistics' and result -> 'analyzed' ? :'t'""", t=table)


def job_cycles(pg):
    return pg.scalar("select count(*) as n from queen.job_runs where job = 'table_statistics'")


def test_a_refilled_table_is_analyzed_within_a_job_period(own_db):
    # The statistics a VACUUM leaves on an emptied table: zero rows.
    own_db.execute("VACUUM (ANALYZE) queen.partitions")
    assert counted_rows(own_db, "queen.partitions") == 0
    with Broker(pg=own_db, name="it-table-stats", env={"TABLE_STATISTICS_INTERVAL_MS": str(PERIOD_MS)}).start() as broker:
        with broker.client() as client:
            queue = unique_name("tstats")
            # One push, one transaction: the table goes from nothing to 3,000 rows (partitions) at once.
            resp = client.push([{"queue": queue, "partition": f"p{i}", "payload": {"i": i}} for i in range(3000)])
            assert resp.status == 201, resp
            poll_until(lambda: counted_rows(own_db, "queen.partitions") >= 3000, timeout=20,
                       what="queen.partitions analyzed with its 3,000 rows")
            assert analyzed_by_the_job(own_db, "queen.partitions") == 1
            # Counted afresh, the table is left alone until it doubles again.
            runs = job_cycles(own_db)
            poll_until(lambda: job_cycles(own_db) >= runs + 3, timeout=20, what="three more cycles of the job")
            assert analyzed_by_the_job(own_db, "queen.partitions") == 1


def test_tables_that_did_not_grow_are_not_analyzed(own_db):
    with Broker(pg=own_db, name="it-table-stats-idle", env={"TABLE_STATISTICS_INTERVAL_MS": str(PERIOD_MS)}).start():
        poll_until(lambda: job_cycles(own_db) >= 3, timeout=20, what="three cycles of the job")
        analyzed = own_db.scalar("""select coalesce(sum(jsonb_array_length(result -> 'analyzed')), 0) as n
                                      from queen.job_runs where job = 'table_statistics'""")
        assert analyzed == 0
