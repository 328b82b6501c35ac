"""Database failures by class (docs/operations-spool.md, "Which failures spool"; docs/operations.md, "Probes"):

- one tenant's statement or lock timeout on its contended partition answers that push 503 and nothing else: other
  tenants' pushes right after are stored (`queued`, not `buffered`), the spool stays empty (issue 20, item 5);
- a database the broker reaches but cannot use (wrong password, unknown role, no such database, no queen schema)
  stops the boot with exit status 2 and one line naming the variable to fix; a database that is down does not;
- at run time, the broker's password changed under it makes /health/ready answer 503 with the reason; what it
  spooled meanwhile is stored once the password is right again.
"""
import threading
import time

import pytest

from auth_support import AUDIENCE, ISSUER, SECRET, bearer, hs256
from harness import Broker, PgTarget, free_port, poll_until, unique_name
from harness import schema

JWT_ENV = {"JWT_ENABLED": "true", "JWT_SECRET": SECRET, "JWT_ISSUER": ISSUER, "JWT_AUDIENCE": AUDIENCE}
LOCK_HOLDER = "queen-it-partition-lock-holder"
BOOT_EXIT_S = 10  # "within a few seconds": the check is one connection and a few PREPAREs


def item(queue, partition, n):
    return {"queue": queue, "partition": partition, "payload": {"n": n}}


class PartitionLock:
    """A psql session holding one partition's row lock (what push_messages serializes on) until released."""

    def __init__(self, pg, tenant, queue, partition):
        self.pg, self.tenant, self.queue, self.partition = pg, tenant, queue, partition
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self):
        sql = f"""
            set application_name = '{LOCK_HOLDER}';
            begin;
            select 1 from queen.partitions p join queen.queues q on q.id = p.queue_id
             where q.tenant = :'tenant' and q.name = :'queue' and p.name = :'partition' for update of p;
            select pg_sleep(120);
            commit;"""
        try:
            self.pg.psql(sql, {"tenant": self.tenant, "queue": self.queue, "partition": self.partition}, timeout=150)
        except Exception:  # ended by release(): pg_terminate_backend
            pass

    def __enter__(self):
        self.thread.start()
        poll_until(lambda: self.pg.scalar(
            "select count(*) as n from pg_stat_activity where application_name = :'app' and query like '%pg_sleep%'"
            " and state = 'active'", app=LOCK_HOLDER) == 1, timeout=10, what="the lock holder sleeping")
        return self

    def __exit__(self, *exc):
        self.pg.execute("select pg_terminate_backend(pid) from pg_stat_activity where application_name = :'app';",
                        app=LOCK_HOLDER)
        self.thread.join(20)


@pytest.mark.parametrize("timeouts,expected_error", [
    ({"DB_STATEMENT_TIMEOUT": "400", "DB_LOCK_TIMEOUT": "0"}, "statement timeout (DB_STATEMENT_TIMEOUT)"),
    ({"DB_STATEMENT_TIMEOUT": "30000", "DB_LOCK_TIMEOUT": "300"}, "lock timeout (DB_LOCK_TIMEOUT)"),
], ids=["statement-timeout", "lock-timeout"])
def test_one_tenants_timeout_is_its_own_and_spools_nothing(broker_factory, pg, timeouts, expected_error):
    broker = broker_factory(name=f"it-dbfail-{unique_name('t')}", env={**JWT_ENV, **timeouts})
    acme = bearer(hs256("read-write", tenant="acme"))
    globex = bearer(hs256("read-write", tenant="globex"))
    operator = bearer(hs256("admin"))
    contended, other = unique_name("contended"), unique_name("bystander")
    with broker.client() as client:
        first = client.push([item(contended, "hot", 0)], headers=acme)
        assert first.status == 201 and first.body[0]["status"] == "queued", first

        with PartitionLock(pg, "acme", contended, "hot"):
            started = time.monotonic()
            refused = client.push([item(contended, "hot", 1)], headers=acme)
            assert refused.status == 503, refused
            assert refused.body["error"].startswith(expected_error), refused
            assert refused.header("Retry-After") == "1", refused
            assert time.monotonic() - started < 5, "answered at the timeout, not after a spool round"

            # Right after: another tenant, and the same tenant elsewhere, go straight to the database.
            for n in range(5):
                resp = client.push([item(other, "p", n)], headers=globex)
                assert resp.status == 201 and [r["status"] for r in resp.body] == ["queued"], resp
            cold = client.push([item(contended, "cold", 2)], headers=acme)
            assert cold.status == 201 and cold.body[0]["status"] == "queued", cold

            buffers = client.get("/api/v1/status/buffers", headers=operator)
            assert buffers.status == 200, buffers
            assert buffers.body["pending"] == 0 and buffers.body["failed"] == 0, buffers
            assert buffers.body["dbHealthy"] is True, buffers
            ready = client.get("/health/ready")
            assert ready.status == 200, ready

        after = client.push([item(contended, "hot", 3)], headers=acme)
        assert after.status == 201 and after.body[0]["status"] == "queued", after
        assert client.get("/api/v1/status/buffers", headers=operator).body["pending"] == 0
    # Nothing accepted is missing: 3 of acme's (the refused one was never accepted), 5 of globex's.
    assert schema.message_count(pg, contended) == 3
    assert schema.message_count(pg, other) == 5
    assert "entering spool mode" not in broker.log_text()


def boot_exit(pg_target, env=None):
    """Starts a broker that should refuse to boot; returns (exit status, seconds, its log)."""
    broker = Broker(pg=pg_target, name=f"it-dbfail-boot-{unique_name('b')}", env=env or {})
    started = time.monotonic()
    broker.start(wait=False)
    try:
        poll_until(lambda: not broker.alive, timeout=BOOT_EXIT_S + 20, what="the broker to exit")
        return broker.returncode, time.monotonic() - started, broker.log_text()
    finally:
        broker.stop()


def assert_refused_boot(status, seconds, log, sqlstate, variable):
    assert status == 2, log
    assert seconds < BOOT_EXIT_S, f"took {seconds:.1f}s\n{log}"
    lines = [line for line in log.splitlines() if f"SQLSTATE {sqlstate}" in line]
    assert len(lines) == 1, log
    assert f"fix {variable}" in lines[0] and "critical" in lines[0], lines[0]
    assert "listening on" not in log


@pytest.mark.parametrize("case", ["missing database", "unknown role", "no schema"])
def test_boot_stops_on_a_database_it_cannot_use(pg, case):
    if case == "missing database":
        status, seconds, log = boot_exit(pg.with_db(unique_name("queen_it_absent").replace("-", "_")))
        assert_refused_boot(status, seconds, log, "3D000", "PG_DB")
    elif case == "unknown role":
        target = PgTarget(pg.host, pg.port, pg.dbname, pg.user, pg.password, "queen_it_no_such_role", "x")
        status, seconds, log = boot_exit(target)
        assert_refused_boot(status, seconds, log, "28000", "PG_USER")
    else:
        name = unique_name("queen_it_empty").replace("-", "_")
        pg.with_db("postgres").execute(f'create database "{name}";')
        try:
            status, seconds, log = boot_exit(pg.with_db(name))
        finally:
            pg.with_db("postgres").execute(f'drop database if exists "{name}" with (force);')
        assert_refused_boot(status, seconds, log, "3F000", "PG_DB")
        assert "no queen schema" in log


def test_boot_with_postgresql_down_still_starts_and_spools(pg):
    down = PgTarget(pg.host, free_port(), pg.dbname, pg.user, pg.password)  # nothing listens there
    broker = Broker(pg=down, name=f"it-dbfail-down-{unique_name('b')}")
    try:
        broker.start(require_db=False)
        assert "booting anyway" in broker.log_text()
        with broker.client() as client:
            ready = client.get("/health/ready")
            assert ready.status == 200, ready  # the spool is writable
            assert "reason" not in ready.body
            resp = client.push_one(unique_name("down"), {"n": 1})
            assert resp.status == 201 and resp.body[0]["status"] == "buffered", resp
    finally:
        broker.stop()


LOGIN = "queen_it_login"
RIGHT = "right-password-1"
WRONG = "Wr0ng-Passw0rd-it"


@pytest.fixture
def password_cluster(pg_cluster):
    """A private cluster where LOGIN (a login granted queen_broker) must give its password (scram), everyone
    else is trusted as before."""
    cluster = pg_cluster()
    cluster.target.execute(f"create role {LOGIN} login in role queen_broker password '{RIGHT}';")
    hba = f"{cluster.data_dir}/pg_hba.conf"
    with open(hba) as fh:
        rules = fh.read()
    with open(hba, "w") as fh:
        fh.write(f"host all {LOGIN} 127.0.0.1/32 scram-sha-256\n" + rules)
    cluster.target.execute("select pg_reload_conf();")
    wrong = PgTarget("127.0.0.1", cluster.port, cluster.dbname, LOGIN, "wrong")  # psql as LOGIN
    poll_until(lambda: not wrong.is_up(), timeout=10, what="pg_hba.conf reloaded")
    return cluster


def test_boot_stops_on_a_wrong_password(password_cluster):
    target = PgTarget("127.0.0.1", password_cluster.port, password_cluster.dbname,
                      broker_user=LOGIN, broker_password=WRONG)
    status, seconds, log = boot_exit(target)
    assert_refused_boot(status, seconds, log, "28P01", "PG_PASSWORD")
    assert WRONG not in log


def test_a_password_changed_at_run_time_makes_readiness_503_and_loses_nothing(password_cluster):
    admin = password_cluster.target
    target = PgTarget("127.0.0.1", password_cluster.port, password_cluster.dbname,
                      broker_user=LOGIN, broker_password=RIGHT)
    broker = Broker(pg=target, name=f"it-dbfail-runtime-{unique_name('b')}")
    queue = unique_name("runtime")
    try:
        broker.start()
        with broker.client() as client:
            assert client.get("/health/ready").status == 200
            assert client.push_one(queue, {"n": 0}).body[0]["status"] == "queued"

            admin.execute(f"alter role {LOGIN} password 'changed-under-it';"
                          f"select pg_terminate_backend(pid) from pg_stat_activity where usename = '{LOGIN}';")
            ready = poll_until(lambda: (lambda r: r if r.status == 503 else None)(client.get("/health/ready")),
                               timeout=15, what="/health/ready 503")
            assert ready.body["status"] == "not_ready", ready
            assert "password authentication failed" in ready.body["reason"], ready
            assert "PG_PASSWORD" in ready.body["reason"], ready
            assert broker.log_text().count("the database refuses this broker") == 1

            spooled = client.push_one(queue, {"n": 1})
            assert spooled.status == 201 and spooled.body[0]["status"] == "buffered", spooled

            admin.execute(f"alter role {LOGIN} password '{RIGHT}';")
            poll_until(lambda: client.get("/health/ready").status == 200, timeout=15, what="ready again")
            poll_until(lambda: schema.message_count(admin, queue) == 2, timeout=15, what="the spooled push stored")
            assert client.get("/api/v1/status/buffers").body["failed"] == 0
    finally:
        broker.stop()
