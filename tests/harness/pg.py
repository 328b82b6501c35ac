"""PostgreSQL for tests: a target to query (PgTarget), a throwaway database on an existing cluster
(TempDatabase), and a throwaway cluster that fault tests may crash (PgCluster).

All SQL goes through the `psql` client (stdlib only, no driver). Queries return JSON-decoded rows.
"""
import atexit
import hashlib
import json
import os
import shutil
import signal
import subprocess
import uuid

from . import env
from .ports import free_port
from .waiting import poll_until

PGBIN = os.environ.get("PGBIN", "/usr/lib/postgresql/15/bin")
PSQL_TIMEOUT_S = 60


class PgError(RuntimeError):
    pass


class PgTarget:
    """One database on one server, addressed like the broker's PG_* variables.

    user/password: the login the tests' own SQL uses (a superuser: fixtures create databases and read
    tables). broker_user/broker_password: the login brokers get (broker_env), by default
    env.broker_pg_login(), i.e. queen_broker; never the superuser.
    """

    def __init__(self, host="127.0.0.1", port=55432, dbname="queen", user="postgres", password="postgres",
                 broker_user=None, broker_password=None):
        self.host, self.port, self.dbname = host, int(port), dbname
        self.user, self.password = user, password
        default_user, default_password = env.broker_pg_login()
        self.broker_user = broker_user or default_user
        self.broker_password = default_password if broker_password is None else broker_password

    @classmethod
    def from_env(cls):
        """The project cluster used by `make test` (PG_HOST, PG_PORT, PG_DB; env.default_pg_settings)."""
        return cls(**env.default_pg_settings())

    def with_db(self, dbname):
        return PgTarget(self.host, self.port, dbname, self.user, self.password, self.broker_user,
                        self.broker_password)

    def url(self):
        return f"db:pg://{self.user}@{self.host}:{self.port}/{self.dbname}"

    def broker_env(self):
        """The PG_* environment a broker needs to use this database (as broker_user)."""
        return {"PG_HOST": self.host, "PG_PORT": str(self.port), "PG_DB": self.dbname,
                "PG_USER": self.broker_user, "PG_PASSWORD": self.broker_password}

    def _client_env(self):
        e = dict(os.environ)
        e.update(PGPASSWORD=self.password, PGCONNECT_TIMEOUT="5")
        return e

    def psql(self, sql, variables=None, dbname=None, timeout=PSQL_TIMEOUT_S):
        """Run SQL through psql (stdin, so :'var' interpolation works) and return its stdout.

        variables: {name: value} passed as `-v name=value`; reference them in SQL as :'name'
        (quoted literal) so values never need escaping. Raises PgError on any SQL error.
        """
        cmd = ["psql", "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-h", self.host, "-p", str(self.port),
               "-U", self.user, "-d", dbname or self.dbname]
        for name, value in (variables or {}).items():
            cmd += ["-v", f"{name}={value}"]
        proc = subprocess.run(cmd, input=sql, capture_output=True, text=True, timeout=timeout,
                              env=self._client_env())
        if proc.returncode != 0:
            raise PgError(f"psql failed ({proc.returncode}) on {self.host}:{self.port}/{dbname or self.dbname}: "
                          f"{proc.stderr.strip()}\nSQL: {sql.strip()[:500]}")
        return proc.stdout

    def query(self, sql, **variables):
        """Rows of a SELECT as a list of dicts (JSON types: numbers, bools, strings, None)."""
        body = sql.strip().rstrip(";")
        wrapped = f"select coalesce(json_agg(row_to_json(q)), '[]'::json) from ({body}) q;"
        out = self.psql(wrapped, variables).strip()
        return json.loads(out) if out else []

    def scalar(self, sql, **variables):
        """The first column of the first row (None when there is no row)."""
        rows = self.query(sql, **variables)
        return next(iter(rows[0].values())) if rows else None

    def execute(self, sql, **variables):
        self.psql(sql, variables)

    def is_up(self):
        try:
            return self.psql("select 1;", dbname="postgres", timeout=10).strip() == "1"
        except (PgError, subprocess.TimeoutExpired):
            return False

    def database_exists(self, dbname):
        return bool(self.with_db("postgres").scalar(
            "select 1 as present from pg_database where datname = :'name'", name=dbname))

    def deploy(self, verify=False, to=None):
        """sqitch deploy the repo's migrations into this database (it must exist); to="@v1.0.0" stops at
        that tag (or change).

        verify=False by default: `make db` verifies the same migrations, and --verify doubles the
        time of a throwaway deploy.
        """
        return self.sqitch("deploy", *(["--verify"] if verify else []), *(["--to", to] if to else []))

    def sqitch(self, command, *args):
        """Run `sqitch COMMAND ARGS... <this database>` on the repo's plan (revert and rebase get -y);
        returns its stdout, raises PgError with both outputs when it fails."""
        cmd = ["sqitch", command] + (["-y"] if command in ("revert", "rebase") else []) + list(args) + [self.url()]
        proc = subprocess.run(cmd, cwd=env.REPO_ROOT,
                              capture_output=True, text=True, timeout=300, env=self._client_env())
        if proc.returncode != 0:
            raise PgError(f"sqitch {command} {' '.join(args)} on {self.url()} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc.stdout

    def dump(self, path):
        """pg_dump of this database to `path` in the custom format, as docs/lifecycle.md takes a backup."""
        self._run_client_tool([f"{PGBIN}/pg_dump", "--format=custom", f"--file={path}"] + self._client_args())

    def restore(self, path):
        """pg_restore of a custom-format dump into this database (created, empty), as docs/lifecycle.md
        restores one: owners and privileges kept, the first error stops it."""
        self._run_client_tool([f"{PGBIN}/pg_restore", "--exit-on-error", "--single-transaction"]
                              + self._client_args() + [path])

    def create_roles(self):
        """The roles of the queen schema on this server, created by the deploy's own script when missing
        (migrations/deploy/roles.sql): what a fresh cluster needs before a dump is restored into it."""
        with open(os.path.join(env.REPO_ROOT, "migrations", "deploy", "roles.sql"), encoding="utf-8") as script:
            self.with_db("postgres").execute(script.read())

    def _client_args(self):
        return ["-h", self.host, "-p", str(self.port), "-U", self.user, "-d", self.dbname]

    def _run_client_tool(self, cmd):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PSQL_TIMEOUT_S * 5,
                              env=self._client_env())
        if proc.returncode != 0 or proc.stderr.strip():
            raise PgError(f"{os.path.basename(cmd[0])} failed ({proc.returncode}) on {self}: {proc.stderr.strip()}")
        return proc.stdout

    def __repr__(self):
        return f"PgTarget({self.host}:{self.port}/{self.dbname})"


class TempDatabase:
    """A fresh database with the migrations deployed, on an existing server; dropped on close().

    Use it when a test changes cluster-wide state (maintenance flags) that must not leak into
    other tests sharing the project database.
    """

    def __init__(self, server, name=None, deploy_to=None):
        """deploy_to: deploy only up to that tag or change (e.g. "@v1.0.0", the upgrade suite)."""
        self.server = server
        self.name = name or f"queen_it_{uuid.uuid4().hex[:10]}"
        self.target = server.with_db(self.name)
        self.deploy_to = deploy_to

    def create(self):
        """A copy of this process's deployed template database (made by the first create on this server
        for these migrations and deploy_to): `CREATE DATABASE ... TEMPLATE` takes well under a second where
        a sqitch deploy takes ten or more, and the copy holds the same schema and sqitch registry."""
        template = _deployed_template(self.server, self.deploy_to)
        self.server.with_db("postgres").execute(f'create database "{self.name}" template "{template}";')
        return self

    def drop(self):
        _drop_database(self.server, self.name)

    def __enter__(self):
        return self.create()

    def __exit__(self, *exc):
        self.drop()


def _drop_database(server, name):
    server.with_db("postgres").execute(f'drop database if exists "{name}" with (force);')


# (host, port, migrations fingerprint, deploy_to) -> (server, name of a deployed template database)
_template_databases = {}


def _deployed_template(server, deploy_to):
    """The name of a database on `server` with the migrations deployed (up to deploy_to), deployed once
    per process and migrations fingerprint; nobody connects to it but the deploy, so it can be copied."""
    key = (server.host, server.port, _migrations_fingerprint(), deploy_to)
    if key not in _template_databases:
        name = f"queen_tpl_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        server.with_db("postgres").execute(f'create database "{name}";')
        try:
            server.with_db(name).deploy(to=deploy_to)
        except Exception:
            _drop_database(server, name)
            raise
        _template_databases[key] = (server, name)
    return _template_databases[key][1]


def drop_template_databases():
    """Drop the template databases this process deployed (atexit); a server already gone is skipped."""
    for server, name in list(_template_databases.values()):
        try:
            _drop_database(server, name)
        except Exception:
            pass
    _template_databases.clear()


def _as_postgres(cmd):
    """initdb, pg_ctl and postgres refuse to run as root: run them as user postgres."""
    return ["runuser", "-u", "postgres", "--"] + cmd if os.geteuid() == 0 else cmd


_program_checked = []


def _check_program_scripts():
    """Every deploy runs the program change as migrations/ holds it: refuse scripts that are not what sql/queen
    and sql/queen_internal make (an edited file without `make sql`), once per process."""
    if _program_checked:
        return
    proc = subprocess.run([os.path.join(env.REPO_ROOT, "scripts", "sql_program.py"), "check"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise PgError(proc.stderr.strip())
    _program_checked.append(True)


def _migrations_fingerprint():
    """Hash of migrations (the sqitch project), so a cached template cluster is rebuilt when migrations change."""
    _check_program_scripts()
    digest = hashlib.sha256()
    root = os.path.join(env.REPO_ROOT, "migrations")
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(path.encode())
            with open(path, "rb") as fh:
                digest.update(fh.read())
    return digest.hexdigest()[:16]


# fingerprint -> data directory of a stopped cluster with the migrations deployed
_template_data_dirs = {}
# every PgCluster created by this process, destroyed at exit if a test forgot to
_clusters = []


class PgCluster:
    """A throwaway PostgreSQL 15 cluster on a free loopback port, in the session temp dir.

        cluster = PgCluster().create()        # initdb (or copy of a cached template), start, deploy
        broker = Broker(pg=cluster.target)
        cluster.stop(mode="immediate")        # a real crash of the database
        cluster.start()                       # crash recovery, same port, same data
        cluster.destroy()

    durable=False (default) runs with fsync and full_page_writes off: fast, and still loses no
    committed transaction when PostgreSQL is killed (only on power loss); synchronous_commit stays
    on. Benchmarks and durability claims pass durable=True (PostgreSQL defaults).

    The first create() in a process initdb's and deploys a template which
    later clusters copy (about 1 s instead of about 5 s).
    """

    def __init__(self, port=None, dbname="queen", durable=False, deploy=True, settings=None,
                 use_template=True):
        self.port = port or free_port()
        self.dbname = dbname
        self.durable = durable
        self.deploy_migrations = deploy
        self.settings = dict(settings or {})
        self.use_template = use_template and deploy
        self.base_dir = None
        self.data_dir = None
        self.log_path = None
        self._frozen = []
        _clusters.append(self)

    @property
    def target(self):
        return PgTarget("127.0.0.1", self.port, self.dbname)

    def broker_env(self):
        return self.target.broker_env()

    # --- lifecycle ----------------------------------------------------------------------
    def create(self):
        self.base_dir = env.new_tmp_dir(f"pg-{self.port}")
        env.make_enterable(self.base_dir)
        self.data_dir = os.path.join(self.base_dir, "data")
        log_dir = os.path.join(self.base_dir, "log")
        os.makedirs(log_dir)
        self.log_path = os.path.join(log_dir, "server.log")
        if os.geteuid() == 0:
            shutil.chown(log_dir, "postgres", "postgres")
        template = self._template() if self.use_template else None
        if template:
            subprocess.run(["cp", "-a", template, self.data_dir], check=True)
            self.start()
        else:
            self._initdb()
            self.start()
            if self.deploy_migrations:
                self.target.with_db("postgres").execute(f'create database "{self.dbname}";')
                self.target.deploy()
        return self

    def _initdb(self):
        os.makedirs(self.data_dir)
        if os.geteuid() == 0:
            shutil.chown(self.data_dir, "postgres", "postgres")
        os.chmod(self.data_dir, 0o700)
        proc = subprocess.run(_as_postgres([f"{PGBIN}/initdb", "-D", self.data_dir, "-U", "postgres",
                                            "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"]),
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise PgError(f"initdb failed: {proc.stderr}")

    def _template(self):
        key = _migrations_fingerprint()
        if key not in _template_data_dirs:
            builder = PgCluster(dbname=self.dbname, use_template=False)
            builder.create()
            builder.stop(mode="fast")
            _template_data_dirs[key] = builder.data_dir
        return _template_data_dirs[key]

    def _server_options(self):
        opts = {"listen_addresses": "127.0.0.1", "port": str(self.port),
                "unix_socket_directories": self.data_dir, "max_connections": "200"}
        if not self.durable:
            # Still safe against what fault tests do (killing processes): the OS page cache
            # survives, and synchronous_commit stays on so an acknowledged commit is in the WAL.
            opts.update(fsync="off", full_page_writes="off")
        opts.update({k: str(v) for k, v in self.settings.items()})
        return " ".join(f"-c {k}={v}" for k, v in opts.items())

    def _pg_ctl(self, *args, timeout=120):
        return subprocess.run(_as_postgres([f"{PGBIN}/pg_ctl", "-D", self.data_dir] + list(args)),
                              capture_output=True, text=True, timeout=timeout)

    def start(self, timeout=60):
        proc = self._pg_ctl("-l", self.log_path, "-w", "-t", str(timeout), "-o", self._server_options(),
                            "start", timeout=timeout + 10)
        if proc.returncode != 0:
            raise PgError(f"pg_ctl start failed: {proc.stdout}{proc.stderr}\n{self.log_tail()}")
        poll_until(self.target.is_up, timeout=timeout, what=f"PostgreSQL on port {self.port} accepting")

    def stop(self, mode="fast"):
        """mode: smart | fast | immediate (immediate = crash, recovery on next start)."""
        self.thaw()
        proc = self._pg_ctl("-m", mode, "-w", "-t", "60", "stop")
        if proc.returncode != 0 and self.is_running():
            raise PgError(f"pg_ctl stop -m {mode} failed: {proc.stdout}{proc.stderr}")

    def restart(self, mode="fast"):
        self.stop(mode)
        self.start()

    def is_running(self):
        return self.data_dir is not None and self._pg_ctl("status", timeout=30).returncode == 0

    def destroy(self):
        """Stop (immediately) and delete the cluster's files. Safe to call twice."""
        if self.data_dir and os.path.isdir(self.data_dir):
            if self.is_running():
                self.stop(mode="immediate")
        if self.base_dir:
            shutil.rmtree(self.base_dir, ignore_errors=True)
        self.base_dir = self.data_dir = None

    # --- hangs: a database that accepts TCP but never answers -----------------------------
    def _server_pids(self):
        with open(os.path.join(self.data_dir, "postmaster.pid")) as fh:
            postmaster = int(fh.readline())
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as fh:
                        fields = fh.read().rsplit(")", 1)[1].split()
                    if int(fields[1]) == postmaster:
                        children.append(int(entry))
                except (OSError, IndexError, ValueError):
                    continue
        return [postmaster] + children

    def freeze(self):
        """SIGSTOP the postmaster and its backends: connections hang instead of failing.

        The postmaster is stopped first, so it forks nothing new; a child listed a moment ago may have exited
        since (the backend of a connection that just closed, a worker that finished) and needs no stopping."""
        postmaster = self._server_pids()[0]
        os.kill(postmaster, signal.SIGSTOP)
        self._frozen = [postmaster]
        for pid in self._server_pids()[1:]:  # listed once the postmaster can fork no more
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            self._frozen.append(pid)

    def thaw(self):
        for pid in self._frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._frozen = []

    def log_tail(self, lines=50):
        try:
            with open(self.log_path, errors="replace") as fh:
                return "".join(fh.readlines()[-lines:])
        except (OSError, TypeError):
            return ""

    def __enter__(self):
        return self.create()

    def __exit__(self, *exc):
        self.destroy()


def destroy_all_clusters():
    """Destroy every cluster this process created (session end and atexit)."""
    for cluster in list(_clusters):
        try:
            cluster.destroy()
        except Exception:
            pass


def destroy_templates():
    """Remove cached template clusters (called at session end)."""
    for path in _template_data_dirs.values():
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    _template_data_dirs.clear()


atexit.register(destroy_templates)
atexit.register(drop_template_databases)
atexit.register(destroy_all_clusters)
