"""Where things are: the repository, the broker binary, the default PostgreSQL target, temp dirs.

Everything a test needs from the environment is read here, so a test never calls os.environ itself.
"""
import os
import re
import shutil
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def project_version():
    """The release this tree builds: CMake's project version (CMakeLists.txt), which the broker reports."""
    with open(os.path.join(REPO_ROOT, "CMakeLists.txt"), encoding="utf-8") as cmake:
        match = re.search(r"project\(queen VERSION (\d+\.\d+\.\d+)", cmake.read())
    assert match, "CMakeLists.txt names no project version"
    return match.group(1)


def broker_binary():
    """Path of the broker under test: $QUEEN_BROKER_BIN, else build/queen-broker in the repo."""
    return os.environ.get("QUEEN_BROKER_BIN") or os.path.join(REPO_ROOT, "build", "queen-broker")


def previous_broker_binary():
    """The previous release's broker (tests/upgrade): $QUEEN_PREV_BROKER_BIN, else what
    scripts/build-previous.sh builds, build-prev/build/queen-broker in the repo."""
    return os.environ.get("QUEEN_PREV_BROKER_BIN") or os.path.join(previous_build_dir(), "build", "queen-broker")


def previous_build_dir():
    return os.environ.get("BUILD_PREV") or os.path.join(REPO_ROOT, "build-prev")


def default_pg_settings():
    """The project cluster that `make test` starts (PG_HOST/PG_PORT/PG_DB). Tests set up and inspect it as
    PG_SUPERUSER/PG_SUPERUSER_PASSWORD; brokers connect as PG_USER/PG_PASSWORD (broker_pg_login)."""
    return {
        "host": os.environ.get("PG_HOST", "127.0.0.1"),
        "port": int(os.environ.get("PG_PORT") or os.environ.get("PGPORT") or 55432),
        "dbname": os.environ.get("PG_DB", "queen"),
        "user": os.environ.get("PG_SUPERUSER", "postgres"),
        "password": os.environ.get("PG_SUPERUSER_PASSWORD", "postgres"),
    }


def broker_pg_login():
    """(user, password) every broker of the suites connects as: PG_USER/PG_PASSWORD, by default the role
    queen_broker, which executes the procedures the broker calls and nothing else (docs/procedures.md, Roles)."""
    return os.environ.get("PG_USER", "queen_broker"), os.environ.get("PG_PASSWORD", "queen_broker")


_session_dir = None


def session_tmp_dir():
    """One directory per pytest process for broker logs, spools and throwaway clusters.

    Root: $QUEEN_TEST_TMP, else <repo>/.test-tmp (git-ignored). Every parent is made enterable
    (o+x) because a throwaway PostgreSQL cluster under it runs as user postgres.
    """
    global _session_dir
    if _session_dir is None:
        root = os.environ.get("QUEEN_TEST_TMP") or os.path.join(REPO_ROOT, ".test-tmp")
        os.makedirs(root, exist_ok=True)
        prune_old_runs(root)
        _session_dir = tempfile.mkdtemp(prefix=time.strftime("run-%Y%m%d-%H%M%S-"), dir=root)
        make_enterable(_session_dir)
    return _session_dir


KEEP_FAILED_RUNS = 5
PRUNE_AFTER_S = 3600


def prune_old_runs(root):
    """Failed runs keep their directory for debugging; bound how many pile up.

    Only directories beyond the newest KEEP_FAILED_RUNS and older than an hour are removed, so a
    run of another engineer in progress in the same root is never touched.
    """
    runs = sorted((d for d in os.listdir(root) if d.startswith("run-")), reverse=True)
    for name in runs[KEEP_FAILED_RUNS:]:
        path = os.path.join(root, name)
        try:
            if time.time() - os.path.getmtime(path) > PRUNE_AFTER_S:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def new_tmp_dir(prefix):
    """A fresh directory inside the session directory."""
    path = tempfile.mkdtemp(prefix=prefix + "-", dir=session_tmp_dir())
    os.chmod(path, 0o755)
    return path


def make_enterable(path):
    """chmod o+x on path and every parent, so the postgres user can reach a data dir below it."""
    path = os.path.abspath(path)
    while True:
        try:
            mode = os.stat(path).st_mode
            if not mode & 0o001:
                os.chmod(path, mode | 0o001)
        except PermissionError:
            pass
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def remove_session_tmp_dir():
    """Delete the session directory (called after a fully green run; kept for debugging otherwise)."""
    global _session_dir
    if _session_dir is not None:
        shutil.rmtree(_session_dir, ignore_errors=True)
        _session_dir = None
