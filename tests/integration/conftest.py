"""One real broker per test module, on the project database (tests share it via unique queue names)."""
import pytest

from harness import Broker


@pytest.fixture(scope="module")
def broker(request, pg):
    module = request.module.__name__.rsplit(".", 1)[-1].replace("test_", "")
    instance = Broker(pg=pg, name=f"it-{module}").start()
    yield instance
    instance.stop()


@pytest.fixture
def client(broker):
    with broker.client() as c:
        yield c
