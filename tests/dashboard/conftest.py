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
                          group (one message traced under a name), a queue with dead letters, a queue of
                          LONG_LIST messages, one of LONG_LIST dead letters, a queue of ACCOUNT_PARTITIONS partitions acct-1.., and an idle
                          group on an empty queue; KV keys <kv>-2 (with a time to live) and <kv>-10 (none), and a
                          timer (a push with deliverAt) due TIMER_DELAY_MS after the seed
  statistics    function  `seeded`, with the statistics recomputed now (POST /api/v1/stats/refresh)
  shots         session   where screenshots go: <run dir>/dashboard-screenshots (the run directory is kept)

Every wait is on a condition (WebDriverWait) with a bounded timeout; no sleeps.
"""
import os
import shutil
import sys
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import Broker, TempDatabase, unique_name
from harness.api import ack_item, quote
from harness import env as harness_env

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import auth_support  # noqa: E402
from dashboard_support import (ACCOUNT_PARTITIONS, KV_TTL_MS, LONG_LIST, TIMER_DELAY_MS, TRACE_NAME, WAIT_S,  # noqa: E402
                               WINDOW, Page, fail_until_dead, refresh_statistics)

CHROMIUM = os.environ.get("QUEEN_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("QUEEN_CHROMEDRIVER", "/usr/bin/chromedriver")
PAGE_LOAD_TIMEOUT_S = 30
# Brokers flush their own figures (failed acks, requests) every second instead of every minute, so the overview's
# failed-deliveries card has them at once.
BROKER_ENV = {"BROKER_STATS_FLUSH_INTERVAL_MS": "1000"}
AUTH_ENV = {"JWT_ENABLED": "true", "JWT_SECRET": auth_support.SECRET, "JWT_ISSUER": auth_support.ISSUER,
            "JWT_AUDIENCE": auth_support.AUDIENCE}


@pytest.fixture(scope="session")
def database(pg):
    with TempDatabase(pg) as db:
        yield db.target


@pytest.fixture(scope="session")
def broker(database):
    instance = Broker(pg=database, name="dash", env=BROKER_ENV).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def auth_broker(database):
    instance = Broker(pg=database, name="dash-auth", env=AUTH_ENV).start()
    yield instance
    instance.stop()


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
        traced = read[0]
        resp = c.post("/api/v1/traces", json={"transactionId": traced["transactionId"], "partitionId": traced["partitionId"],
                                              "data": {"step": "charged"}, "traceNames": [TRACE_NAME],
                                              "consumerGroup": group, "eventType": "info"})
        assert resp.status == 201, resp
        many, accounts, empty, idle = (unique_name("dash-many"), unique_name("dash-acct"), unique_name("dash-empty"),
                                       "dash-idle")
        resp = c.push([{"queue": many, "partition": "p", "transactionId": f"many-{n:03d}", "payload": {"n": n}}
                       for n in range(LONG_LIST)])
        assert resp.status == 201, resp
        resp = c.push([{"queue": accounts, "partition": f"acct-{n}", "payload": {"account": n}}
                       for n in range(1, ACCOUNT_PARTITIONS + 1)])
        assert resp.status == 201, resp
        # As many dead letters: retryLimit 0 dead-letters a message at its first failure.
        dead_many = unique_name("dash-dead-many")
        assert c.configure(dead_many, {"retryLimit": 0, "retryDelay": 0}).status == 200
        resp = c.push([{"queue": dead_many, "partition": "p", "transactionId": f"dead-{n:03d}", "payload": {"n": n}}
                       for n in range(LONG_LIST)])
        assert resp.status == 201, resp
        popped = c.pop_messages(dead_many, batch=LONG_LIST)
        assert len(popped) == LONG_LIST, len(popped)
        resp = c.ack_batch([ack_item(m, status="failed", error="rejected") for m in popped])
        assert resp.status == 200 and all(r["dlq"] for r in resp.body), resp
        # A group that polled a queue with nothing in it: a cursor row, nothing ever consumed.
        assert c.configure(empty, {}).status == 200
        assert c.pop_messages(empty, consumer_group=idle, wait="false") == []
        kv = unique_name("dash-kv")
        resp = c.request("PUT", f"/api/v1/kv/{quote(kv)}-2", json={"value": {"plan": "gold", "seats": 12}, "ttlMs": KV_TTL_MS})
        assert resp.status == 200 and resp.body["expiresAt"], resp
        kv_expires_at = resp.body["expiresAt"]
        assert c.request("PUT", f"/api/v1/kv/{quote(kv)}-10", json={"value": "no expiry"}).status == 200
        timer_queue = unique_name("dash-timer")
        resp = c.push([{"queue": timer_queue, "partition": "p", "transactionId": "timer-1", "payload": {"reminder": 1},
                        "deliverAt": int(time.time() * 1000) + TIMER_DELAY_MS}])
        assert resp.status == 201 and resp.body[0]["status"] == "queued", resp
    return {"orders": orders, "dead": dead, "group": group, "traced": traced["transactionId"],
            "traced_partition_id": traced["partitionId"], "many": many, "dead_many": dead_many, "accounts": accounts, "empty": empty,
            "idle": idle, "kv": kv, "kv_expires_at": kv_expires_at, "timer_queue": timer_queue}


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
