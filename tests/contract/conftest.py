"""Contract suite: every route of the HTTP API against real broker processes, checking exact wire shapes.

Fixtures:
  broker    module    one broker on the project database (tests share it via unique names)
  client    function  a QueenClient to it whose every exchange is recorded for the OpenAPI check
  recorded  session   the list of recorded exchanges (method, raw path, status, headers, body)

Tests send requests exactly as the official clients do (paths, percent-encoding, query parameters, bodies)
and assert names, casing, types and status codes themselves. Every response is also validated against
docs/openapi.json as it arrives (openapi_check.py), and test_openapi.py, which runs last, fails for any
documented operation no test exercised.
"""
import pytest

from contract_client import RECORDED, RecordingClient
from harness import Broker


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


def pytest_collection_modifyitems(items):
    """The coverage check of test_openapi.py runs after every other contract test."""
    last = [item for item in items if item.module.__name__.endswith("test_openapi")]
    items[:] = [item for item in items if item not in last] + last
