"""The docker compose files (docs/operations-ha.md, "Running replicas", and the two-broker example): they may only name
environment variables the broker really reads, and the HA file must wire two distinct brokers to one
database, to each other over the mesh, with one secret and a spool volume each."""
import glob
import os
import re

import pytest
import yaml

from harness import env

DOCKER_DIR = os.path.join(env.REPO_ROOT, "docker")
COMPOSE_FILES = ("docker-compose.yml", "docker-compose.ha.yml")
CONFIG_SOURCES = os.path.join(env.REPO_ROOT, "src", "config", "*.cpp")


def load_compose(name):
    with open(os.path.join(DOCKER_DIR, name)) as fh:
        return yaml.safe_load(fh)


def variables_the_broker_reads():
    """Every upper-case string literal of the config module: the names it looks up in the environment."""
    names = set()
    for path in glob.glob(CONFIG_SOURCES):
        with open(path) as fh:
            names.update(re.findall(r'"([A-Z][A-Z0-9_]+)"', fh.read()))
    return names


def is_broker(service):
    """A service running queen-broker: built from the Dockerfile's runtime stage, or the queen image."""
    build = service.get("build")
    if isinstance(build, dict) and build.get("target") == "runtime":
        return True
    return "queen" in str(service.get("image", "")) and not isinstance(build, dict)


def broker_services(compose):
    return {name: s for name, s in (compose.get("services") or {}).items() if is_broker(s)}


def environment(service):
    """A service's environment as a dict, whichever of the two compose spellings it uses."""
    variables = service.get("environment") or {}
    if isinstance(variables, list):
        return dict(entry.split("=", 1) if "=" in entry else (entry, None) for entry in variables)
    return {k: (None if v is None else str(v)) for k, v in variables.items()}


def volume_mounts(service):
    """(source, target) of each volume: short "src:dst[:mode]" strings and long-form dicts alike."""
    mounts = []
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            mounts.append((volume.get("source"), volume.get("target")))
        else:
            source, target = volume.split(":")[:2]
            mounts.append((source, target))
    return mounts


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_compose_files_name_only_variables_the_broker_reads(compose_file):
    known = variables_the_broker_reads()
    assert {"PG_HOST", "QUEEN_SERVER_ID", "QUEEN_MESH_PEERS", "FILE_BUFFER_DIR"} <= known, \
        f"reading the config sources found only {sorted(known)}"
    brokers = broker_services(load_compose(compose_file))
    assert brokers, f"{compose_file} runs no broker service"
    unknown = {name: sorted(set(environment(s)) - known) for name, s in brokers.items()}
    assert all(not names for names in unknown.values()), f"{compose_file}: variables no broker reads: {unknown}"


def test_the_ha_compose_file_wires_two_distinct_brokers_to_each_other():
    compose = load_compose("docker-compose.ha.yml")
    brokers = broker_services(compose)
    assert len(brokers) == 2, sorted(brokers)
    variables = {name: environment(s) for name, s in brokers.items()}

    server_ids = [v.get("QUEEN_SERVER_ID") for v in variables.values()]
    assert all(server_ids) and len(set(server_ids)) == 2, server_ids
    secrets = {v.get("QUEEN_SYNC_SECRET") for v in variables.values()}
    assert len(secrets) == 1 and all(secrets), "the brokers must share one non-empty QUEEN_SYNC_SECRET"
    databases = {(v.get("PG_HOST"), v.get("PG_PORT", "5432"), v.get("PG_DB")) for v in variables.values()}
    assert len(databases) == 1, f"the brokers must use the same database: {databases}"

    for name, own in variables.items():
        (other_name, other), = [(n, v) for n, v in variables.items() if n != name]
        peers = [p.strip() for p in (own.get("QUEEN_MESH_PEERS") or "").split(",") if p.strip()]
        assert peers == [f"{other_name}:{other.get('QUEEN_MESH_PORT')}"], \
            f"{name} must name {other_name}'s mesh port as its only peer, not {peers}"

    spool_volumes = []
    for name, service in brokers.items():
        spool_dir = variables[name].get("FILE_BUFFER_DIR")
        sources = [source for source, target in volume_mounts(service) if target == spool_dir]
        assert spool_dir and len(sources) == 1, f"{name}: FILE_BUFFER_DIR {spool_dir!r} is not on a volume"
        spool_volumes.append(sources[0])
    assert len(set(spool_volumes)) == 2, f"the brokers share a spool volume: {spool_volumes}"
    declared = set(compose.get("volumes") or {})
    named = [v for v in spool_volumes if not v.startswith((".", "/"))]
    assert set(named) <= declared, f"spool volumes {named} are not declared (top-level volumes: {sorted(declared)})"
