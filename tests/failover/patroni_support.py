"""A two-member Patroni cluster with a one-member etcd, all on loopback ports, for the failover suite.

Debian's `patroni` and `etcd-server` packages (scripts/deps.sh). etcd keeps the leader key; each Patroni member
runs its own PostgreSQL (as user postgres) and its REST API; `synchronous_mode: true` makes Patroni name the
replica in the leader's synchronous_standby_names. The cluster is driven only through Patroni's own tools.
"""
import json
import os
import shutil
import signal
import subprocess
import urllib.request

from harness import PgTarget, free_port, poll_until
from harness import env as harness_env
from harness.pg import PGBIN, _as_postgres

SCOPE = "queen-failover"
START_TIMEOUT_S = 120
STOP_TIMEOUT_S = 30


def _owned_by_postgres(path):
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


class PatroniCluster:
    def __init__(self, members=2):
        self.base_dir = harness_env.new_tmp_dir("patroni")
        harness_env.make_enterable(self.base_dir)
        _owned_by_postgres(self.base_dir)
        self.etcd_client_port, self.etcd_peer_port = free_port(), free_port()
        self.members = [{"name": f"m{i + 1}", "pg_port": free_port(), "api_port": free_port()} for i in range(members)]
        self.processes = {}

    # --- lifecycle ------------------------------------------------------------------------
    def start(self):
        self._start_etcd()
        for member in self.members:
            self._start_member(member)
            poll_until(lambda: self.member_state(member["name"]) in ("running", "streaming"), timeout=START_TIMEOUT_S,
                       what=f"patroni member {member['name']} running")
        poll_until(lambda: self.sync_standby() is not None, timeout=START_TIMEOUT_S,
                   what="patroni naming a synchronous standby")
        return self

    def _start_etcd(self):
        data_dir = os.path.join(self.base_dir, "etcd")
        client, peer = f"http://127.0.0.1:{self.etcd_client_port}", f"http://127.0.0.1:{self.etcd_peer_port}"
        self._spawn("etcd", ["etcd", "--name", "fo", "--data-dir", data_dir, "--listen-client-urls", client,
                             "--advertise-client-urls", client, "--listen-peer-urls", peer,
                             "--initial-advertise-peer-urls", peer, "--initial-cluster", f"fo={peer}"])
        poll_until(lambda: urllib.request.urlopen(f"{client}/health", timeout=2).status == 200,
                   timeout=START_TIMEOUT_S, what="etcd healthy")

    def _config(self, member):
        name, pg_port, api_port = member["name"], member["pg_port"], member["api_port"]
        member_dir = os.path.join(self.base_dir, name)
        os.makedirs(member_dir, exist_ok=True)
        _owned_by_postgres(member_dir)
        hba = ["local all all trust", "host all all 127.0.0.1/32 trust", "host replication all 127.0.0.1/32 trust"]
        # JSON is YAML: no YAML writer needed.
        return {
            "scope": SCOPE, "name": name,
            "restapi": {"listen": f"127.0.0.1:{api_port}", "connect_address": f"127.0.0.1:{api_port}"},
            "etcd3": {"hosts": f"127.0.0.1:{self.etcd_client_port}"},
            "bootstrap": {
                "dcs": {"ttl": 20, "loop_wait": 1, "retry_timeout": 5, "synchronous_mode": True,
                        "postgresql": {"use_pg_rewind": False,
                                       "parameters": {"wal_level": "replica", "max_wal_senders": 5,
                                                      "fsync": "off", "full_page_writes": "off",
                                                      "max_connections": 200}}},
                "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}],
                "pg_hba": hba,
            },
            "postgresql": {
                "listen": f"127.0.0.1:{pg_port}", "connect_address": f"127.0.0.1:{pg_port}",
                "data_dir": os.path.join(member_dir, "data"), "bin_dir": PGBIN,
                "pgpass": os.path.join(member_dir, "pgpass"),
                "authentication": {"superuser": {"username": "postgres", "password": "postgres"},
                                   "replication": {"username": "postgres", "password": "postgres"}},
                "parameters": {"unix_socket_directories": member_dir},
                "pg_hba": hba,
            },
        }

    def _start_member(self, member):
        path = os.path.join(self.base_dir, f"{member['name']}.yml")
        with open(path, "w") as fh:
            json.dump(self._config(member), fh)
        self.config_path = path
        self._spawn(member["name"], _as_postgres(["patroni", path]))

    def _spawn(self, name, cmd):
        log = open(os.path.join(self.base_dir, f"{name}.log"), "ab")
        self.processes[name] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.base_dir), log)

    def stop(self):
        """Patroni members first (SIGTERM: each stops its PostgreSQL), then etcd."""
        for name in [m["name"] for m in self.members] + ["etcd"]:
            entry = self.processes.pop(name, None)
            if entry is None:
                continue
            process, log = entry
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            log.close()
        for member in self.members:  # a PostgreSQL left behind by a killed member
            data_dir = os.path.join(self.base_dir, member["name"], "data")
            if os.path.exists(os.path.join(data_dir, "postmaster.pid")):
                subprocess.run(_as_postgres([f"{PGBIN}/pg_ctl", "-D", data_dir, "-m", "immediate", "stop"]),
                               capture_output=True, timeout=STOP_TIMEOUT_S)
        shutil.rmtree(self.base_dir, ignore_errors=True)

    # --- what Patroni says ---------------------------------------------------------------
    def cluster(self):
        api = self.members[0]["api_port"]
        with urllib.request.urlopen(f"http://127.0.0.1:{api}/cluster", timeout=5) as resp:
            return json.load(resp)

    def _member(self, name):
        return next((m for m in self.cluster().get("members", []) if m["name"] == name), {})

    def member_state(self, name):
        return self._member(name).get("state")

    def leader(self):
        return next((m["name"] for m in self.cluster().get("members", []) if m.get("role") == "leader"), None)

    def sync_standby(self):
        return next((m["name"] for m in self.cluster().get("members", []) if m.get("role") == "sync_standby"), None)

    def target(self, name, dbname="queen"):
        port = next(m["pg_port"] for m in self.members if m["name"] == name)
        return PgTarget("127.0.0.1", port, dbname)

    def broker_env(self):
        return {"PG_HOST": ",".join("127.0.0.1" for _ in self.members),
                "PG_PORT": ",".join(str(m["pg_port"]) for m in self.members)}

    def failover(self, candidate):
        """`patronictl failover --candidate <name> --force`: Patroni moves the leader key and promotes."""
        proc = subprocess.run(_as_postgres(["patronictl", "-c", self.config_path, "failover", "--candidate", candidate,
                                            "--force"]), capture_output=True, text=True, timeout=START_TIMEOUT_S)
        assert proc.returncode == 0, f"patronictl failover failed: {proc.stdout}{proc.stderr}"
        return proc.stdout
