"""Wire-shape assertions shared by integration and fault tests."""
import datetime
import re
import uuid

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
MICROSECOND_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
ISO_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


def assert_uuid(value, what="value"):
    assert isinstance(value, str) and UUID_RE.match(value), f"{what} is not a lowercase UUID: {value!r}"


def parse_iso(value):
    """Parse an ISO-8601 UTC timestamp with a Z suffix into an aware datetime."""
    assert isinstance(value, str) and ISO_TS_RE.match(value), f"not an ISO-8601 UTC timestamp: {value!r}"
    return datetime.datetime.fromisoformat(value[:-1]).replace(tzinfo=datetime.timezone.utc)


def assert_no_cors(resp):
    """No Access-Control-* header: what every answer of a broker without HTTP_CORS_ORIGINS carries."""
    cors = {name: value for name, value in resp.headers.items() if name.startswith("access-control-")}
    assert not cors, f"CORS headers on {resp.status} of a broker with CORS off: {cors}"


def assert_json_error(resp, status, message=None, prefix=None):
    """A 4xx/5xx with Content-Type application/json and {"error": "..."}."""
    assert resp.status == status, f"expected {status}, got {resp!r}"
    assert "application/json" in (resp.header("content-type") or ""), resp.headers
    assert isinstance(resp.body, dict) and isinstance(resp.body.get("error"), str) and resp.body["error"], resp.body
    if message is not None:
        assert resp.body["error"] == message, resp.body
    if prefix is not None:
        assert resp.body["error"].startswith(prefix), resp.body
    assert_no_cors(resp)


def assert_no_content(resp):
    """204 with no body at all."""
    assert resp.status == 204, f"expected 204, got {resp!r}"
    assert resp.raw == b"", f"204 carried a body: {resp.raw[:200]!r}"


def new_txid(prefix="tx"):
    return f"{prefix}-{uuid.uuid4()}"
