"""Fixtures shared by tests/integration and tests/fault (the harness lives in tests/harness).

Fixtures:
  pg               session  PgTarget of the project database (PG_HOST/PG_PORT/PG_DB), must be up
  broker_factory   function make_broker(**Broker kwargs) -> started Broker; all stopped at teardown
  pg_cluster       function factory make_cluster(**PgCluster kwargs) -> created PgCluster; destroyed at teardown
  temp_database    function factory make_db(server=pg) -> TempDatabase (fresh db, migrations deployed); dropped

On a failing test, the log lines every broker wrote during that test are attached to the report.
A test during which a broker wrote a sanitizer report or crashed (Broker.failure) fails in its
teardown, with that broker's log attached, even when its own assertions passed.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import Broker, PgCluster, PgTarget, TempDatabase  # noqa: E402
from harness import env as harness_env  # noqa: E402
from harness import pg as harness_pg  # noqa: E402

BROKER_LOG_LINES_ON_FAILURE = 200


@pytest.fixture(scope="session")
def pg():
    target = PgTarget.from_env()
    if not target.is_up():
        pytest.fail(f"PostgreSQL is not reachable at {target}: run `scripts/pg.sh start` and "
                    f"`PG_DB={target.dbname} scripts/db-deploy.sh` (or `make db`)", pytrace=False)
    return target


@pytest.fixture
def broker_factory(pg):
    started = []

    def make_broker(start=True, **kwargs):
        kwargs.setdefault("pg", pg)
        broker = Broker(**kwargs)
        started.append(broker)
        return broker.start() if start else broker

    yield make_broker
    for broker in started:
        broker.stop()


@pytest.fixture
def pg_cluster():
    clusters = []

    def make_cluster(**kwargs):
        cluster = PgCluster(**kwargs)
        clusters.append(cluster)
        return cluster.create()

    yield make_cluster
    for cluster in clusters:
        cluster.destroy()


@pytest.fixture
def temp_database(pg):
    databases = []

    def make_db(server=None):
        database = TempDatabase(server or pg)
        databases.append(database)
        return database.create()

    yield make_db
    for database in databases:
        database.drop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Remember where every existing broker log ends, so a failure shows only this test's lines.
    item.broker_log_offsets = {id(b): b.log_size() for b in Broker.instances()}


# (id(broker), start number) of crashed broker processes already blamed on a test.
_crashes_reported = set()


def broker_failures(offsets):
    """Broker.failure() of every broker since `offsets`; a crashed process is reported once."""
    failures = []
    for broker in Broker.instances():
        failure = broker.failure(since=offsets.get(id(broker), 0))
        if failure is None:
            continue
        key = (id(broker), broker.starts)
        if not broker.sanitizer_reports(offsets.get(id(broker), 0)) and key in _crashes_reported:
            continue
        _crashes_reported.add(key)
        failures.append(failure)
    return failures


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    offsets = getattr(item, "broker_log_offsets", {})
    if report.when == "teardown":
        # After the teardown, module-scoped brokers of the module's last test have stopped too.
        failures = broker_failures(offsets)
        if failures:
            text = "broker sanitizer report or crash during this test:\n" + "\n".join(failures)
            if report.failed:
                report.sections.append(("broker failures", text))
            else:
                report.outcome = "failed"
                report.longrepr = text
    if not report.failed:
        return
    for broker in Broker.instances():
        since = offsets.get(id(broker), 0)
        if broker.log_size() > since:
            state = "running" if broker.alive else f"exited {broker.returncode}"
            report.sections.append((f"broker log {broker.name} ({state}, {broker.log_path})",
                                    broker.log_tail(BROKER_LOG_LINES_ON_FAILURE, since=since)))


def pytest_sessionfinish(session, exitstatus):
    Broker.cleanup_all()
    harness_pg.destroy_all_clusters()
    harness_pg.destroy_templates()
    if exitstatus == 0 and not os.environ.get("QUEEN_TEST_KEEP_TMP"):
        harness_env.remove_session_tmp_dir()
