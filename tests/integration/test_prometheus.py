"""/metrics as Prometheus scrapes it (docs/operations-metrics.md): the text exposition on the scraper's
Accept header, `promtool check metrics` clean on a real broker's answer, queue depth and consumer lag
with METRICS_MAX_QUEUES (the rest summed under "_other"), request and database call histograms, the
standard process_* series; the alert rules (`promtool check rules`, `promtool test rules`) and the
Grafana dashboard, every expression of which names a series the broker exports."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from harness import Broker, poll_until, unique_name
from harness.api import ack_item

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "queen-rules.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "queen-rules.test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "queen.json"
# What Prometheus 2.42 sends when it scrapes.
SCRAPER_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$")
PROMTOOL = shutil.which("promtool")


def promtool(*args, stdin=None):
    assert PROMTOOL, "promtool is missing: scripts/deps.sh test installs the Debian package prometheus"
    return subprocess.run([PROMTOOL, *args], input=stdin, capture_output=True, text=True, timeout=60)


def samples(text):
    """{(name, labels text): value} of every sample line."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE_RE.match(line)
        assert match, f"not a sample line: {line!r}"
        out[(match.group(1), match.group(2) or "")] = float(match.group(3))
    return out


@pytest.fixture(scope="module")
def broker(module_database):
    env = {"METRICS_REFRESH_INTERVAL_MS": 1000, "METRICS_MAX_QUEUES": 2}
    instance = Broker(pg=module_database, name="it-prometheus", env=env).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def queues(broker):
    """deep: 5 messages, group billing consumed 2; dead: 2 dead letters; small: 1 message (beyond
    METRICS_MAX_QUEUES=2, so it is summed under _other)."""
    names = {"deep": unique_name("prom-deep"), "dead": unique_name("prom-dead"), "small": unique_name("prom-small")}
    with broker.client() as client:
        assert client.configure(names["dead"], {"retryLimit": 0, "retryDelay": 0}).status == 200
        for i in range(5):
            assert client.push_one(names["deep"], {"i": i}).status in (200, 201)
        assert client.push_one(names["small"], {}).status in (200, 201)
        got = client.drain(names["deep"], 2, batch=2, consumer_group="billing")
        assert len(got) == 2
        for i in range(2):
            assert client.push_one(names["dead"], {"i": i}).status in (200, 201)
        failed = client.pop_messages(names["dead"], batch=2, wait=True, timeout_ms=2000)
        assert len(failed) == 2
        resp = client.ack_batch([ack_item(m, status="failed", error="boom") for m in failed])
        assert resp.status == 200 and all(r["dlq"] for r in resp.body), resp
        assert client.post("/api/v1/stats/refresh").status == 200
    return names


def scrape(client):
    resp = client.get("/metrics", headers={"Accept": SCRAPER_ACCEPT})
    assert resp.status == 200, resp
    assert resp.header("content-type").startswith("text/plain; version=0.0.4"), resp.header("content-type")
    assert resp.header("vary") == "Accept"
    return resp.body


def test_metrics_answers_a_scraper_in_the_text_format_and_clients_in_json(client):
    text = scrape(client)
    assert "# TYPE queen_uptime_seconds gauge" in text
    for accept in (None, "*/*", "application/json"):
        resp = client.get("/metrics", headers={"Accept": accept} if accept else None)
        assert resp.status == 200 and "application/json" in resp.header("content-type"), (accept, resp)
        assert set(resp.body) >= {"uptime", "requests", "messages", "database", "memory", "cpu"}
    as_json = client.get("/metrics/json", headers={"Accept": "text/plain"})
    assert "application/json" in as_json.header("content-type") and "uptime" in as_json.body
    assert client.get("/metrics/prometheus").header("content-type").startswith("text/plain")


def test_promtool_finds_nothing_to_complain_about(client, queues):
    poll_until(lambda: ('queen_queue_pending_messages', f'{{tenant="",queue="{queues["deep"]}"}}') in samples(scrape(client)),
               timeout=20, what="the queue figures of the first refresh")
    text = scrape(client)
    checked = promtool("check", "metrics", stdin=text)
    assert checked.returncode == 0 and not checked.stdout.strip() and not checked.stderr.strip(), \
        f"promtool check metrics:\n{checked.stdout}{checked.stderr}"


def test_queue_depth_and_consumer_lag_with_the_rest_summed(client, queues):
    deep, dead = queues["deep"], queues["dead"]

    def figures():
        s = samples(scrape(client))
        key = ("queen_queue_pending_messages", f'{{tenant="",queue="{deep}"}}')
        return s if s.get(key) == 3 else None

    s = poll_until(figures, timeout=20, what="queue figures after the refresh")
    assert s[("queen_queue_dead_letter_messages", f'{{tenant="",queue="{dead}"}}')] == 2
    assert s[("queen_queue_pending_messages", f'{{tenant="",queue="{dead}"}}')] == 0
    assert s[("queen_consumer_group_lag_messages", f'{{tenant="",queue="{deep}",group="billing"}}')] == 3
    assert s[("queen_consumer_group_lag_seconds", f'{{tenant="",queue="{deep}",group="billing"}}')] >= 0
    # METRICS_MAX_QUEUES=2: the third queue has no series of its own.
    assert not [k for k in s if queues["small"] in k[1]]
    assert s[("queen_queue_pending_messages", '{tenant="",queue="_other"}')] == 1
    assert s[("queen_consumer_group_lag_messages", '{tenant="",queue="_other",group="_other"}')] == 1
    assert s[("queen_queue_depth_refreshed_timestamp_seconds", "")] > 0


def test_request_and_database_call_histograms_and_process_series(client, queues):
    s = samples(scrape(client))
    names = {name for name, _ in s}
    assert ("queen_http_request_duration_seconds_count",
            '{route="/api/v1/push",method="POST",status_class="2xx"}') in s
    assert any(n == "queen_http_requests_total" and 'route="/api/v1/pop/queue/:queue"' in l for n, l in s)
    assert s[("queen_db_call_duration_seconds_count", '{procedure="push_with_dedup"}')] >= 1
    assert ("queen_db_call_duration_seconds_bucket", '{procedure="push_with_dedup",le="+Inf"}') in s
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                 "process_open_fds", "process_max_fds", "process_start_time_seconds", "queen_build_info"):
        assert name in names, name
    assert s[("process_open_fds", "")] <= s[("process_max_fds", "")]
    assert not [n for n in names if "microseconds" in n]
    # An unknown path is one label value, whatever the path was.
    assert client.get(f"/no/such/{unique_name('path')}").status == 404
    assert any(n == "queen_http_requests_total" and l.startswith('{route="unmatched"') and 'code="404"' in l
               for n, l in samples(scrape(client)))


def test_the_alert_rules_load_and_their_unit_tests_pass():
    checked = promtool("check", "rules", str(RULES))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", str(RULE_TESTS))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    alerts = {rule["alert"] for rule in rules}
    assert alerts == {"QueenSpoolFailed", "QueenSpoolGrowing", "QueenMaintenanceLeftOn", "QueenConsumerLagHigh",
                      "QueenDeadLettersGrowing", "QueenDatabaseDisconnected", "QueenTooManyRequests"}


METRIC_NAME = re.compile(r"\b((?:queen|process)_[a-z0-9_]+)\b")


def test_every_dashboard_expression_names_series_the_broker_exports(client, queues):
    exported = {name for name, _ in samples(scrape(client))}
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert len(expressions) >= 20
    variables = [v["definition"] for v in dashboard["templating"]["list"] if v.get("definition")]
    for expr in expressions + variables:
        names = METRIC_NAME.findall(expr)
        assert names, f"no broker series in {expr!r}"
        for name in names:
            assert name in exported, f"{name} (in {expr!r}) is not in the broker's /metrics"
