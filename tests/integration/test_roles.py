"""The database roles (docs/procedures.md, Roles) as the suites meet them: brokers connect as queen_broker,
and the roles, being cluster-wide, survive a second database's deploy and revert on the same cluster.
sql/tests/grants.sql holds the grant matrix itself."""
import subprocess

from harness import env as harness_env
from harness import unique_name


def broker_logins(pg, dbname):
    return {r["usename"] for r in pg.with_db("postgres").query(
        "select distinct usename from pg_stat_activity where datname = :'db' and application_name = 'queen-broker'",
        db=dbname)}


def test_a_broker_of_the_suites_connects_as_queen_broker(broker_factory, pg):
    broker = broker_factory()
    with broker.client() as client:
        assert client.push_one(unique_name("roles"), {"n": 1}).body[0]["status"] == "queued"
    assert broker.environment()["PG_USER"] == "queen_broker"
    assert broker_logins(pg, pg.dbname) == {"queen_broker"}


def test_reverting_one_database_leaves_another_on_the_cluster_working(broker_factory, temp_database):
    kept, reverted = temp_database(), temp_database()  # the second deploy finds the roles made
    proc = subprocess.run(["sqitch", "revert", "-y", reverted.target.url()], cwd=harness_env.REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert reverted.target.scalar("select count(*) as n from pg_namespace where nspname like 'queen%'") == 0
    # The roles are still there (kept's objects and grants hold them), and so are kept's grants.
    assert kept.target.scalar("select count(*) as n from pg_roles where rolname like 'queen\\_%'") >= 4
    broker = broker_factory(pg=kept.target)
    queue = unique_name("roles-kept")
    with broker.client() as client:
        assert client.push_one(queue, {"n": 1}).body[0]["status"] == "queued"
        assert [m["data"] for m in client.pop_messages(queue, batch=1, wait=False)] == [{"n": 1}]
    # And a deploy on top of roles that exist works again.
    reverted.target.deploy()
    assert reverted.target.scalar("select queen.schema_version() as v") == harness_env.project_version()
