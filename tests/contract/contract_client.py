"""RecordingClient: a QueenClient whose every answer is checked against docs/openapi.json and recorded."""
from harness.api import QueenClient

import openapi_check

RECORDED = []  # every exchange of the run, for the coverage check of test_openapi.py


class RecordingClient(QueenClient):
    """QueenClient that validates each answer against the documented operation and keeps
    (method, path, operation, status, headers, body)."""

    def request(self, method, path, **kw):
        resp = super().request(method, path, **kw)
        operation = openapi_check.check(method, path, resp.status, resp.headers, resp.body, resp.raw)
        RECORDED.append({"method": method, "path": path.split("?", 1)[0], "operation": operation,
                         "status": resp.status, "headers": resp.headers, "body": resp.body, "raw": resp.raw})
        return resp
