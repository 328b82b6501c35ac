"""Contract suite: every route of the HTTP API against real broker processes, checking exact wire shapes.

Fixtures:
  broker    module    one broker on the project database (tests share it via unique names)
  client    function  a QueenClient to it whose every exchange is recorded for the OpenAPI check
  recorded  session   the list of recorded exchanges (method, raw path, status, headers, body)

Tests send requests exactly as the official clients do (paths, percent-encoding, query parameters, bodies)
and assert names, casing, types and status codes themselves. Every recorded response is also validated
against docs/openapi.json (test_openapi.py, which runs last).
"""
import pytest

from harness import Broker
from harness.api import QueenClient

RECORDED = []


class RecordingClient(QueenClient):
    """QueenClient that keeps (method, path, status, headers, body) of every exchange."""

    def request(self, method, path, **kw):
        resp = super().request(method, path, **kw)
        RECORDED.append({"method": method, "path": path.split("?", 1)[0], "status": resp.status,
                         "headers": resp.headers, "body": resp.body, "raw": resp.raw})
        return resp


@pytest.fixture(scope="module")
def broker(request, pg):
    module = request.module.__name__.rsplit(".", 1)[-1].replace("test_", "")
    instance = Broker(pg=pg, name=f"ct-{module}").start()
    yield instance
    instance.stop()


@pytest.fixture
def client(broker):
    with RecordingClient(broker.url) as c:
        yield c


@pytest.fixture(scope="session")
def recorded():
    return RECORDED
