"""A tiny keep-alive JSON HTTP client on http.client (stdlib only).

    client = HttpClient("http://127.0.0.1:6632")
    status, headers, body = client.post("/api/v1/push", {"items": [...]})

A response unpacks as (status, headers, body): headers is a dict with lower-case names, body is
the parsed JSON for JSON responses, the decoded text for other non-empty responses, and None for
an empty body. `response.raw` keeps the bytes. One HttpClient is one connection: do not share it
between threads (give every worker its own client).
"""
import http.client
import json as jsonlib
import socket
import time
import urllib.parse


class Response:
    __slots__ = ("status", "headers", "body", "raw", "elapsed")

    def __init__(self, status, headers, body, raw, elapsed):
        self.status = status
        self.headers = headers
        self.body = body
        self.raw = raw
        self.elapsed = elapsed

    def __iter__(self):
        return iter((self.status, self.headers, self.body))

    def header(self, name, default=None):
        return self.headers.get(name.lower(), default)

    def __repr__(self):
        text = self.raw[:1500].decode("utf-8", "replace") if self.raw else ""
        return f"<Response {self.status} {text!r}>"


# Failures that mean "the server closed an idle keep-alive connection before reading our request".
_STALE_CONNECTION_ERRORS = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                            http.client.CannotSendRequest)


def parse_body(content_type, raw):
    """JSON for JSON content types, text otherwise, None when empty."""
    if not raw:
        return None
    if "json" in (content_type or ""):
        try:
            return jsonlib.loads(raw)
        except ValueError as exc:
            raise AssertionError(f"{content_type} body is not valid JSON ({exc}): {raw[:500]!r}") from None
    return raw.decode("utf-8", "replace")


def query_string(params):
    """Form-encode params, dropping None values and spelling booleans the way clients do."""
    if not params:
        return ""
    pairs = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        pairs.append((key, str(value)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


class HttpClient:
    def __init__(self, base_url, timeout=30.0, retry_stale=True):
        """base_url: http://host:port. timeout: default per-request socket timeout in seconds.

        retry_stale: re-send once on a fresh connection when a *reused* keep-alive connection turns
        out to be closed by the server before any response byte arrived. Fault tests that must see
        every connection error as-is pass False.
        """
        parsed = urllib.parse.urlsplit(base_url)
        self.base_url = base_url.rstrip("/")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.timeout = timeout
        self.retry_stale = retry_stale
        self.default_headers = {}
        self._conn = None
        self._conn_used = False

    def close(self):
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._conn_used = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connection(self, timeout):
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
            self._conn_used = False
        else:
            self._conn.timeout = timeout
            if self._conn.sock is not None:
                self._conn.sock.settimeout(timeout)
        return self._conn

    def request(self, method, path, json=None, data=None, headers=None, params=None, timeout=None):
        """Send one request and read the whole response.

        json: a value to serialise (sent with Content-Type: application/json).
        data: raw bytes/str sent verbatim (for malformed-JSON tests); overrides json.
        params: query parameters (see query_string).
        """
        body = None
        send_headers = dict(self.default_headers)
        if data is not None:
            body = data.encode() if isinstance(data, str) else data
            send_headers.setdefault("Content-Type", "application/json")
        elif json is not None:
            body = jsonlib.dumps(json).encode()
            send_headers["Content-Type"] = "application/json"
        if headers:
            send_headers.update(headers)
        if body is None and method in ("POST", "PUT"):
            send_headers.setdefault("Content-Length", "0")
        target = path + query_string(params)
        timeout = self.timeout if timeout is None else timeout
        reused = self._conn is not None and self._conn_used
        try:
            return self._roundtrip(method, target, body, send_headers, timeout)
        except _STALE_CONNECTION_ERRORS:
            self.close()
            if not (reused and self.retry_stale):
                raise
        return self._roundtrip(method, target, body, send_headers, timeout)

    def _roundtrip(self, method, target, body, headers, timeout):
        conn = self._connection(timeout)
        started = time.monotonic()
        try:
            try:
                conn.request(method, target, body=body, headers=headers)
            except (BrokenPipeError, ConnectionResetError):
                # The server may answer (e.g. 413) and close before reading the whole body;
                # its response can still be waiting in our receive buffer.
                if body is None:
                    raise
            resp = conn.getresponse()
            raw = resp.read()
        except (socket.timeout, OSError, http.client.HTTPException):
            self.close()
            raise
        self._conn_used = True
        elapsed = time.monotonic() - started
        resp_headers = {k.lower(): v for k, v in resp.getheaders()}
        if resp.will_close:
            self.close()
        return Response(resp.status, resp_headers, parse_body(resp_headers.get("content-type"), raw),
                        raw, elapsed)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, json=None, **kw):
        return self.request("POST", path, json=json, **kw)

    def put(self, path, json=None, **kw):
        return self.request("PUT", path, json=json, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def options(self, path, **kw):
        return self.request("OPTIONS", path, **kw)
