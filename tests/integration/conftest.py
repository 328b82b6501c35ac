"""One real broker per test module, on the project database (tests share it via unique queue names)."""
import pytest

from harness import Broker, TempDatabase


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


@pytest.fixture(scope="module")
def module_database(pg):
    """A database of the module's own (migrations deployed), for tests that change cluster-wide state
    (maintenance flags) or count over everything a tenant owns; dropped after the module."""
    with TempDatabase(pg) as database:
        yield database.target
