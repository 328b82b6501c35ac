"""Dashboard suite: the dashboard in headless Chromium (Debian's chromium + chromium-driver, driven by selenium)
against real brokers on a database of its own (docs/dashboard.md).

Fixtures:
  database      session   a fresh database (migrations deployed), dropped at the end: the suite toggles the
                          cluster-wide maintenance flags and reads tenant-wide counters
  broker        session   a broker on it without authentication
  auth_broker   session   a broker on the same database with JWT authentication (HS256, tokens of
                          tests/integration/auth_support.py)
  browser       session   a headless Chromium
  page, auth_page         a dashboard_support.Page on broker / auth_broker in that browser
  seeded        session   real data on `broker`: a queue with pushed, acked and unacked messages and a consumer
                          group, a queue with dead letters
  statistics    function  `seeded`, with the statistics recomputed now (POST /api/v1/stats/refresh)
  shots         session   where screenshots go: <run dir>/dashboard-screenshots (the run directory is kept)

Every wait is on a condition (WebDriverWait) with a bounded timeout; no sleeps.
"""
import os
import shutil
import sys

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import Broker, TempDatabase, unique_name
from harness.api import ack_item
from harness.waiting import poll_until
from harness import env as harness_env

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import auth_support  # noqa: E402
from dashboard_support import WAIT_S, Page  # noqa: E402

CHROMIUM = os.environ.get("QUEEN_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("QUEEN_CHROMEDRIVER", "/usr/bin/chromedriver")
PAGE_LOAD_TIMEOUT_S = 30
WINDOW = (1440, 1000)
AUTH_ENV = {"JWT_ENABLED": "true", "JWT_SECRET": auth_support.SECRET, "JWT_ISSUER": auth_support.ISSUER,
            "JWT_AUDIENCE": auth_support.AUDIENCE}


@pytest.fixture(scope="session")
def database(pg):
    with TempDatabase(pg) as db:
        yield db.target


@pytest.fixture(scope="session")
def broker(database):
    instance = Broker(pg=database, name="dash").start()
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def auth_broker(database):
    instance = Broker(pg=database, name="dash-auth", env=AUTH_ENV).start()
    yield instance
    instance.stop()


def fail_until_dead(client, queue, partition, transaction_id, attempts):
    """Pop and fail the message `attempts` times (its retryLimit + 1): the last failure dead-letters it."""
    for attempt in range(attempts):
        msgs = poll_until(lambda: client.pop_messages(queue, partition=partition), timeout=10, interval=0.05,
                          what=f"{transaction_id} delivery {attempt}")
        assert msgs[0]["transactionId"] == transaction_id
        resp = client.ack(transaction_id, msgs[0]["partitionId"], lease_id=msgs[0]["leaseId"], status="failed",
                          error=f"card declined ({attempt})")
        assert resp.status == 200 and resp.body[0]["dlq"] is (attempt == attempts - 1), resp


def refresh_statistics(client):
    """POST /api/v1/stats/refresh until it ran (it answers skipped while a reconciler batch is writing)."""
    poll_until(lambda: (lambda r: r.status == 200 and r.body.get("skipped") is False)(
        client.post("/api/v1/stats/refresh")), timeout=30, interval=0.2, what="a statistics refresh")


@pytest.fixture(scope="session")
def seeded(broker):
    orders, dead, group = unique_name("dash-orders"), unique_name("dash-dlq"), "dash-readers"
    with broker.client() as c:
        assert c.configure(orders, {"leaseTime": 60, "retryLimit": 3}).status == 200
        items = [{"queue": orders, "partition": f"region-{n % 2}", "transactionId": f"order-{n}",
                  "payload": {"order": n, "amount": 10 * n}} for n in range(8)]
        resp = c.push(items)
        assert resp.status == 201 and all(r["status"] == "queued" for r in resp.body), resp
        assert len(c.drain(orders, 3, batch=3)) >= 3  # queue mode: acked
        held = c.pop_messages(orders, batch=1)  # queue mode: popped, lease held
        assert held
        read = c.pop_messages(orders, batch=2, consumer_group=group)  # the group consumed two
        assert read and c.ack_batch([ack_item(m) for m in read], consumer_group=group).status == 200
        assert c.configure(dead, {"retryLimit": 1, "retryDelay": 0, "leaseTime": 30}).status == 200
        for n, partition in ((1, "eu"), (2, "us")):
            assert c.push_one(dead, {"invoice": n}, partition=partition, transaction_id=f"inv-{n}").status == 201
            fail_until_dead(c, dead, partition, f"inv-{n}", attempts=2)
    return {"orders": orders, "dead": dead, "group": group}


@pytest.fixture
def statistics(broker, seeded):
    """The statistics recomputed now (the stats job would otherwise do it within a minute)."""
    with broker.client() as c:
        refresh_statistics(c)
    return seeded


@pytest.fixture(scope="session")
def browser():
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            pytest.fail(f"{path} is missing: run scripts/deps.sh (chromium, chromium-driver, python3-selenium)",
                        pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT_S)
    driver.set_script_timeout(WAIT_S)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def shots():
    path = os.path.join(harness_env.session_tmp_dir(), "dashboard-screenshots")
    os.makedirs(path, exist_ok=True)
    # The screenshots are this suite's output: keep the run directory they are in even after a green run.
    os.environ.setdefault("QUEEN_TEST_KEEP_TMP", "1")
    return path


def pytest_terminal_summary(terminalreporter):
    if harness_env._session_dir:
        path = os.path.join(harness_env._session_dir, "dashboard-screenshots")
        if os.path.isdir(path):
            terminalreporter.write_line(f"dashboard screenshots: {path}")


@pytest.fixture
def page(browser, broker, shots):
    return Page(browser, broker, shots)


@pytest.fixture
def auth_page(browser, auth_broker, shots):
    return Page(browser, auth_broker, shots)
