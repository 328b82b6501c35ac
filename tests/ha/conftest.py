"""Fixtures of the HA suite: two or three real brokers on one database, linked by the mesh.

  ha_db         session   PgTarget of a database of the suite's own (migrations deployed) on the project
                          cluster: job_runs, timers and KV rows of these tests never mix with other suites'
  mesh_factory  function  make_mesh(count, env=None, per_broker_env=None, start=True) -> [Broker]
                          named <prefix>-a, <prefix>-b, ...; every broker is stopped at teardown

Each broker of a mesh gets its own QUEEN_MESH_PORT, QUEEN_MESH_PEERS naming the others' ports, and the
same QUEEN_SYNC_SECRET (ha_support.mesh_port(broker) tells the port).
"""
import signal

import pytest

from ha_support import MESH_SECRET
from harness import Broker, TempDatabase, free_port, unique_name

# Up to three brokers share the project cluster with other suites: keep each pool small.
HA_DB_POOL_SIZE = 10
# The killed-broker timer test needs PostgreSQL to notice a dead client while its statement waits on
# a lock; without this a blocked backend would finish (and commit) the dead broker's fire later.
CLIENT_CHECK_INTERVAL = "200ms"


@pytest.fixture(scope="session")
def ha_db(pg):
    database = TempDatabase(pg).create()
    pg.with_db("postgres").execute(
        f'alter database "{database.name}" set client_connection_check_interval = \'{CLIENT_CHECK_INTERVAL}\';')
    yield database.target
    database.drop()


def mesh_env(mesh_ports, index, secret=MESH_SECRET):
    """The mesh variables of broker `index` among brokers listening on `mesh_ports`."""
    peers = ",".join(f"127.0.0.1:{port}" for i, port in enumerate(mesh_ports) if i != index)
    return {"QUEEN_MESH_PORT": mesh_ports[index], "QUEEN_MESH_PEERS": peers, "QUEEN_SYNC_SECRET": secret}


@pytest.fixture
def mesh_factory(ha_db):
    made = []

    def make_mesh(count=2, env=None, per_broker_env=None, start=True):
        prefix = unique_name("ha")[:9]
        mesh_ports = [free_port() for _ in range(count)]
        brokers = []
        for index in range(count):
            variables = {"DB_POOL_SIZE": HA_DB_POOL_SIZE}
            variables.update(mesh_env(mesh_ports, index))
            variables.update(env or {})
            if per_broker_env:
                variables.update(per_broker_env[index] or {})
            broker = Broker(pg=ha_db, name=f"{prefix}-{chr(ord('a') + index)}", env=variables)
            made.append(broker)
            brokers.append(broker)
        if start:
            for broker in brokers:
                broker.start()
        return brokers

    yield make_mesh
    for broker in made:
        if broker.alive:
            broker.signal(signal.SIGCONT)  # a test that froze a broker and failed must not hang teardown
        broker.stop()
