"""Fixtures of the failover suite (tests/failover): a primary with a synchronous streaming standby,
both throwaway clusters on loopback ports (the shared fixtures live in tests/conftest.py).

  replicated_pair  function  start() -> (primary, standby); both destroyed at teardown
"""
import pytest

from failover_support import start_replicated_pair


@pytest.fixture
def replicated_pair(pg_cluster):
    standbys = []

    def start():
        return start_replicated_pair(pg_cluster, standbys)

    yield start
    for standby in standbys:
        standby.destroy()
