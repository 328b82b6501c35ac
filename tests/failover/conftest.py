"""Fixtures of the failover suite (tests/failover): a primary with a synchronous streaming standby,
both throwaway clusters on loopback ports (the shared fixtures live in tests/conftest.py).

  replicated_pair  function  start() -> (primary, standby); both destroyed at teardown
  patroni_cluster  function  a started two-member Patroni cluster with its etcd (patroni_support.py); stopped after
"""
import pytest

from failover_support import start_replicated_pair
from patroni_support import PatroniCluster


@pytest.fixture
def replicated_pair(pg_cluster):
    standbys = []

    def start():
        return start_replicated_pair(pg_cluster, standbys)

    yield start
    for standby in standbys:
        standby.destroy()


@pytest.fixture
def patroni_cluster():
    """A started two-member Patroni cluster (synchronous mode) with its etcd; stopped at teardown."""
    cluster = PatroniCluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()
