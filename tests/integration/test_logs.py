"""Logs for a log pipeline (docs/operations-logs.md): LOG_FORMAT=json gives one JSON object per line (read with
jq), UTC timestamps with their zone, an access log (ACCESS_LOG) whose line a request id finds, X-Request-Id
honoured when well-formed and minted otherwise, database rejections of bad input at debug with their
multi-line text folded into fields, and the level changed at run time (POST /api/v1/system/log-level)."""
import json
import re
import shutil
import subprocess

import pytest

from harness import Broker, poll_until, unique_name

UTC_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
JQ = shutil.which("jq")


@pytest.fixture(scope="module")
def broker(pg):
    instance = Broker(pg=pg, name="it-logs", env={"LOG_FORMAT": "json", "ACCESS_LOG": "true"}).start()
    yield instance
    instance.stop()


def broker_lines(text):
    """The broker's own lines (the harness marks each start with a line of its own)."""
    return [line for line in text.splitlines() if line.strip() and not line.startswith("=== harness:")]


def log_lines(broker, since=0):
    return [json.loads(line) for line in broker_lines(broker.log_text(since=since))]


def access_line(broker, request_id, since=0):
    def find():
        found = [line for line in log_lines(broker, since) if line.get("requestId") == request_id]
        return found[0] if found else None
    return poll_until(find, timeout=10, what=f"the access line of {request_id}")


def test_every_line_is_one_json_object_that_jq_reads(broker):
    assert JQ, "jq is missing"
    lines = broker_lines(broker.log_text())
    assert len(lines) > 5
    read = subprocess.run([JQ, "-c", "."], input="\n".join(lines), capture_output=True, text=True, timeout=30)
    assert read.returncode == 0, read.stderr
    assert len(read.stdout.splitlines()) == len(lines)  # one object per line, none spread over several
    for line in map(json.loads, lines):
        assert UTC_TS.match(line["ts"]), line
        assert line["level"] in {"trace", "debug", "info", "warn", "error", "critical"}, line
        assert line["server"] == "it-logs" and isinstance(line["msg"], str), line
    # The spool's settings are said once at boot.
    assert sum("file_buffer" in line["msg"] for line in map(json.loads, lines)) == 0
    assert sum(line["msg"].startswith("config: spool ") for line in map(json.loads, lines)) == 1
    # The default open-file limit and HTTP_MAX_CONNECTIONS are no reason for a warning.
    assert not [line for line in map(json.loads, lines) if "open file limit" in line["msg"]]


def test_a_request_id_is_honoured_and_finds_the_access_line(broker, client):
    queue = unique_name("logs")
    request_id = f"it-logs-{unique_name('rid')}"
    offset = broker.log_size()
    resp = client.post("/api/v1/push", {"items": [{"queue": queue, "payload": {"n": 1}}]},
                       headers={"X-Request-Id": request_id})
    assert resp.status in (200, 201), resp
    assert resp.header("x-request-id") == request_id
    line = access_line(broker, request_id, offset)
    assert line["logger"] == "access" and line["level"] == "info"
    assert line["method"] == "POST" and line["route"] == "/api/v1/push" and line["path"] == "/api/v1/push"
    assert line["status"] == resp.status and line["bytes"] == len(resp.raw)
    assert line["tenant"] == "" and line["durationMs"] >= 0
    # A routed path is logged with its template.
    popped = client.get(f"/api/v1/pop/queue/{queue}", headers={"X-Request-Id": request_id + "-pop"})
    assert access_line(broker, request_id + "-pop", offset)["route"] == "/api/v1/pop/queue/:queue"
    assert popped.status == 200


@pytest.mark.parametrize("sent", [None, "has spaces", "x" * 129, "quote\"d", "ünïcode"])
def test_a_missing_or_malformed_request_id_is_replaced_by_a_fresh_one(broker, client, sent):
    resp = client.get("/health", headers={"X-Request-Id": sent} if sent else None)
    minted = resp.header("x-request-id")
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", minted), minted
    assert access_line(broker, minted)["route"] == "/health"


def test_rejections_by_the_database_are_debug_lines_with_folded_fields(broker, client):
    offset = broker.log_size()
    bad = client.configure(unique_name("logs-bad"), {"leaseTime": "soon"})
    assert bad.status == 400, bad
    rid = bad.header("x-request-id")
    access_line(broker, rid, offset)
    assert not [line for line in log_lines(broker, offset) if "request rejected" in line["msg"]]

    assert client.post("/api/v1/system/log-level", {"level": "debug"}).body == {"level": "debug", "accessLog": True}
    try:
        offset = broker.log_size()
        assert client.configure(unique_name("logs-bad"), {"leaseTime": "soon"}).status == 400
        rejected = poll_until(lambda: [line for line in log_lines(broker, offset) if "request rejected" in line["msg"]],
                              timeout=10, what="the debug line of the rejection")
        assert rejected[0]["level"] == "debug"
        assert "\n" not in rejected[0]["msg"] and "must be an integer" in rejected[0]["msg"]
        assert "context" in rejected[0], rejected[0]  # the PL/pgSQL CONTEXT lines: a field, not more lines
    finally:
        assert client.post("/api/v1/system/log-level", {"level": "info"}).status == 200


def test_the_level_and_the_access_log_change_at_run_time(broker, client):
    assert client.get("/api/v1/system/log-level").body == {"level": "info", "accessLog": True}
    for body in ({"level": "loud"}, {"accessLog": "yes"}, {}, [1]):
        resp = client.post("/api/v1/system/log-level", body)
        assert resp.status == 400 and "error" in resp.body, (body, resp)
    assert client.get("/api/v1/system/log-level").body == {"level": "info", "accessLog": True}
    assert client.post("/api/v1/system/log-level", {"accessLog": False}).body == {"level": "info", "accessLog": False}
    try:
        offset = broker.log_size()
        quiet = client.get("/health", headers={"X-Request-Id": "it-logs-quiet"})
        assert quiet.header("x-request-id") == "it-logs-quiet"  # still returned, only not logged
        marker = client.post("/api/v1/system/log-level", {"level": "warn"})  # logs its own change at warn
        assert marker.status == 200
        poll_until(lambda: [l for l in log_lines(broker, offset) if "log-level" in l["msg"]], timeout=10,
                   what="the line of the change")
        assert not [line for line in log_lines(broker, offset) if line.get("requestId") == "it-logs-quiet"]
    finally:
        assert client.post("/api/v1/system/log-level", {"level": "info", "accessLog": True}).status == 200
