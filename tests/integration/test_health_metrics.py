"""GET /health, /metrics, /metrics/prometheus; CORS on every response; OPTIONS; unknown routes."""
import re

from harness import poll_until, unique_name
from harness.assertions import assert_no_cors, assert_json_error, assert_no_content

REQUIRED_GAUGES = [
    "queen_file_buffer_pending", "queen_file_buffer_failed", "queen_file_buffer_db_healthy",
    "queen_maintenance_mode_enabled", "queen_uptime_seconds",
    "queen_db_pool_size", "queen_db_pool_idle", "queen_db_pool_active", "queen_build_info",
]
# name{labels} value [timestamp]
SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)( -?\d+)?$")


def parse_prometheus(text):
    """{metric name: [values]} and {metric name: type}; every line must follow the text format."""
    samples, types = {}, {}
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind.strip()
            continue
        if line.startswith("#"):
            continue
        match = SAMPLE_RE.match(line)
        assert match, f"not a Prometheus sample line: {line!r}"
        samples.setdefault(match.group(1), []).append(float(match.group(3)))
    return samples, types


def test_health_reports_a_connected_database(client):
    resp = client.health()
    assert resp.status == 200, resp
    assert "application/json" in resp.header("content-type")
    assert resp.body["status"] == "healthy"
    assert resp.body["database"] == "connected"
    assert isinstance(resp.body["version"], str) and resp.body["version"]
    assert_no_cors(resp)


def test_metrics_json_has_the_client_visible_sections(client):
    resp = client.metrics()
    assert resp.status == 200, resp
    body = resp.body
    assert isinstance(body["uptime"], (int, float)) and body["uptime"] >= 0
    for section, keys in {"requests": ["total", "rate"], "messages": ["total", "rate"],
                          "database": ["poolSize", "idleConnections", "waitingRequests"],
                          "memory": ["rss", "heapTotal", "heapUsed", "external", "arrayBuffers"],
                          "cpu": ["user", "system"]}.items():
        assert isinstance(body[section], dict), section
        for key in keys:
            assert isinstance(body[section][key], (int, float)), f"{section}.{key} = {body[section].get(key)!r}"
    assert body["database"]["poolSize"] > 0


def test_prometheus_exposes_the_required_gauges(client):
    resp = client.prometheus()
    assert resp.status == 200, resp
    assert resp.header("content-type").startswith("text/plain; version=0.0.4"), resp.headers
    assert resp.header("cache-control") == "no-cache"
    samples, types = parse_prometheus(resp.body)
    for name in REQUIRED_GAUGES:
        assert types.get(name) == "gauge", f"# TYPE {name} gauge missing (types: {types.get(name)!r})"
        assert name in samples, f"no sample for {name}"
    assert samples["queen_file_buffer_db_healthy"] == [1.0]
    assert samples["queen_file_buffer_pending"] == [0.0]
    assert samples["queen_maintenance_mode_enabled"][0] in (0.0, 1.0)
    assert samples["queen_uptime_seconds"][0] >= 0
    assert samples["queen_db_pool_size"][0] > 0
    assert samples["queen_build_info"] == [1.0]  # its version label: tests/integration/test_front_door.py


def test_prometheus_uptime_advances(client):
    def uptime():
        samples, _ = parse_prometheus(client.prometheus().body)
        return samples["queen_uptime_seconds"][0]

    first = uptime()
    poll_until(lambda: uptime() > first, timeout=5, interval=0.2, what="queen_uptime_seconds advancing")


def test_no_cors_headers_by_default_on_success_empty_and_error_responses(client):
    queue = unique_name("cors")
    pushed = client.push_one(queue, {"n": 1})
    assert pushed.status == 201, pushed
    assert_no_cors(pushed)
    popped = client.pop(queue, batch=1)
    assert popped.status == 200, popped
    assert_no_cors(popped)
    empty = client.pop(unique_name("cors-empty"))
    assert_no_content(empty)
    assert_no_cors(empty)
    bad = client.post("/api/v1/push", {"items": "nope"})
    assert_json_error(bad, 400)
    missing = client.get("/api/v1/no-such-route")
    assert_json_error(missing, 404)


def test_options_preflight_answers_204_without_cors_by_default(client):
    # A browser reads a preflight without Access-Control-Allow-Origin as a refusal (tests/integration/
    # test_transport_bounds.py has the listed-origin answers).
    for path in ("/api/v1/push", "/api/v1/pop/queue/anything", "/health"):
        resp = client.options(path, headers={"Origin": "http://dashboard.local",
                                             "Access-Control-Request-Method": "POST"}, timeout=5)
        assert_no_content(resp)
        assert_no_cors(resp)


def test_unknown_api_route_is_a_json_404(client):
    assert_json_error(client.get("/api/v1/definitely/not/a/route"), 404, message="Not found")
    assert_json_error(client.post("/api/v1/nope", {"a": 1}), 404, message="Not found")
