"""Broker: one queen-broker process under test.

    broker = Broker(pg=PgTarget.from_env(), env={"LOG_LEVEL": "debug"}).start()
    client = broker.client()
    broker.kill(); broker.start()       # SIGKILL, then a new process on the same port and spool
    broker.stop()                       # SIGTERM and wait

Each broker gets its own free PORT, its own FILE_BUFFER_DIR and a log file (stdout+stderr of every
process it started, separated by marker lines). The environment is built from scratch (only
PATH/HOME/locale are inherited), so stray variables of the calling shell never reach the broker.
Every Broker is registered; Broker.cleanup_all() kills any still running (the pytest session does
this, and so does atexit).

Sanitizer builds (make test-asan): a report goes to the process's stderr, hence into the log, and
aborts the broker. broker.failure() names a sanitizer report or a crash (a death by SIGABRT, SIGSEGV,
... that the harness did not cause); tests/conftest.py fails the test during which one appeared.
"""
import atexit
import os
import re
import signal
import subprocess
import threading
import time

from . import env as harness_env
from .api import QueenClient
from .httpclient import HttpClient
from .ports import free_port
from .waiting import attempts

INHERITED_VARS = ("PATH", "HOME", "LANG", "LC_ALL", "TZ",
                  "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS")

# The first line of every ASan/LSan/TSan/UBSan report (UBSan: "file:line:col: runtime error: ...").
SANITIZER_REPORT_RE = re.compile(
    r"^(?:==\d+==)?(?:ERROR|WARNING): (?:Address|Leak|Thread|UndefinedBehavior)Sanitizer\b.*$"
    r"|^\S+:\d+:\d+: runtime error: .*$", re.MULTILINE)
# Signals a broker only dies from by crashing (or by a sanitizer's abort_on_error).
CRASH_SIGNALS = (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE)


# How often start() probes /health and wait_for_log() reads the log: both are cheap, and a test
# waiting on either should not lose time to a growing interval.
POLL_S = 0.05


# Variables whose values the harness's start banner masks, as the broker's own boot lines do: test logs
# are kept as CI artifacts, and the secrets test searches the whole log file.
SECRET_VAR_MARKERS = ("PASSWORD", "SECRET", "ENCRYPTION_KEY", "TOKEN")


def shown_value(name, value):
    return "***" if value and any(marker in name for marker in SECRET_VAR_MARKERS) else value


class BrokerError(RuntimeError):
    pass


class Broker:
    _instances = []
    _instances_lock = threading.Lock()

    def __init__(self, pg=None, env=None, name=None, binary=None, port=None, spool_dir=None,
                 startup_timeout=30.0):
        """pg: a PgTarget (default: the project database from PG_* / PgTarget.from_env()).
        env: extra or overriding variables; a value of None removes the variable.
        name: QUEEN_SERVER_ID and log name (default broker-<port>).
        """
        from .pg import PgTarget
        self.pg = pg or PgTarget.from_env()
        self.port = port or free_port()
        self.name = name or f"broker-{self.port}"
        self.binary = binary or harness_env.broker_binary()
        self.base_dir = harness_env.new_tmp_dir(self.name)
        self.spool_dir = spool_dir or os.path.join(self.base_dir, "spool")
        os.makedirs(self.spool_dir, exist_ok=True)
        self.log_path = os.path.join(self.base_dir, "broker.log")
        self.startup_timeout = startup_timeout
        self.extra_env = dict(env or {})
        self.proc = None
        self.starts = 0
        self.stop_timed_out = False
        self.start_offset = 0     # where the current process's lines begin in the log
        self.ended_by_harness = False
        with Broker._instances_lock:
            Broker._instances.append(self)

    # --- addresses ----------------------------------------------------------------------
    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def client(self, **kw):
        """A new QueenClient (one connection; use one per thread)."""
        return QueenClient(self.url, **kw)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def returncode(self):
        return self.proc.poll() if self.proc else None

    def environment(self):
        """The exact environment the next start() passes to the process."""
        variables = {k: os.environ[k] for k in INHERITED_VARS if k in os.environ}
        variables.update({
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "FILE_BUFFER_DIR": self.spool_dir,
            "QUEEN_SERVER_ID": self.name,
            "LOG_LEVEL": "info",
            # Several brokers and tests share one cluster: keep pools small.
            "DB_POOL_SIZE": "20",
        })
        variables.update(self.pg.broker_env())
        for key, value in self.extra_env.items():
            if value is None:
                variables.pop(key, None)
            else:
                variables[key] = str(value)
        return variables

    # --- lifecycle ----------------------------------------------------------------------
    def start(self, wait=True, require_db=True, env=None):
        """Start a new process (same port, same spool). env: overrides merged into this broker's env."""
        if self.alive:
            raise BrokerError(f"{self.name} is already running (pid {self.pid})")
        if not os.path.isfile(self.binary) or not os.access(self.binary, os.X_OK):
            raise BrokerError(f"broker binary not found or not executable: {self.binary} "
                              f"(build it or set QUEEN_BROKER_BIN)")
        if env:
            self.extra_env.update(env)
        self.starts += 1
        self.stop_timed_out = False
        self.ended_by_harness = False
        self.start_offset = self.log_size()
        variables = self.environment()
        with open(self.log_path, "ab") as log:
            shown = " ".join(f"{k}={shown_value(k, v)}" for k, v in sorted(variables.items())
                             if k not in INHERITED_VARS)
            log.write(f"=== harness: start #{self.starts} of {self.name} at {time.strftime('%H:%M:%S')}: "
                      f"{shown}\n".encode())
            log.flush()
            self.proc = subprocess.Popen([self.binary], env=variables, cwd=self.base_dir,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        if wait:
            self.wait_ready(require_db=require_db)
        return self

    def wait_ready(self, timeout=None, require_db=True):
        """Poll GET /health until it answers (200 with database "connected" when require_db).

        Raises BrokerError with the log tail if the process exits or the deadline passes.
        """
        timeout = timeout or self.startup_timeout
        last = None
        with HttpClient(self.url, timeout=2.0, retry_stale=False) as probe:
            for _ in attempts(timeout, interval=POLL_S, max_interval=POLL_S):
                if not self.alive:
                    raise BrokerError(f"{self.name} exited with code {self.returncode} during startup\n"
                                      f"{self.log_tail()}")
                try:
                    resp = probe.get("/health")
                    last = resp
                    if not require_db:
                        return resp
                    body = resp.body if isinstance(resp.body, dict) else {}
                    if resp.status == 200 and body.get("database") == "connected":
                        return resp
                except OSError as exc:
                    last = exc
        raise BrokerError(f"{self.name} not ready within {timeout:.0f}s (last /health: {last!r})\n"
                          f"{self.log_tail()}")

    def stop(self, timeout=15.0):
        """SIGTERM and wait; SIGKILL after `timeout` (then stop_timed_out is True). Returns the exit code."""
        if not self.alive:
            return self.returncode
        self.ended_by_harness = True
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop_timed_out = True
            return self.kill()

    def kill(self):
        """SIGKILL: the broker dies without any cleanup (its spool stays on disk). Returns the exit code."""
        if self.alive:
            self.ended_by_harness = True
            self.proc.kill()
        return self.proc.wait(30) if self.proc else None

    def signal(self, signum):
        """Send any signal (SIGSTOP/SIGCONT to freeze a broker, for instance)."""
        if signum in (signal.SIGTERM, signal.SIGKILL, signal.SIGINT) or signum in CRASH_SIGNALS:
            self.ended_by_harness = True
        self.proc.send_signal(signum)

    def restart(self, env=None, graceful=True, require_db=True):
        """stop() (or kill() when graceful=False), then start() on the same port and spool dir."""
        if graceful:
            self.stop()
        else:
            self.kill()
        return self.start(env=env, require_db=require_db)

    # --- logs -----------------------------------------------------------------------------
    def log_size(self):
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def log_text(self, since=0):
        """The log from byte offset `since` (use log_size() before an action to get only its lines)."""
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(since)
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_tail(self, lines=80, since=0):
        text = self.log_text(since).splitlines()
        return "\n".join(text[-lines:])

    def wait_for_log(self, needle, timeout=10.0, since=0):
        """Poll the log until `needle` appears after offset `since`; returns the log text."""
        for _ in attempts(timeout, interval=POLL_S, max_interval=POLL_S):
            text = self.log_text(since)
            if needle in text:
                return text
        raise TimeoutError(f"{needle!r} not in {self.name} log within {timeout:.1f}s\n{self.log_tail(since=since)}")

    # --- sanitizer reports and crashes ----------------------------------------------------
    def sanitizer_reports(self, since=0):
        """The first line of every sanitizer report in the log after offset `since`."""
        return SANITIZER_REPORT_RE.findall(self.log_text(since))

    def crashed(self):
        """The crash signal that ended the current process, when the harness did not send it."""
        code = self.returncode
        if code is None or code >= 0 or self.ended_by_harness or -code not in CRASH_SIGNALS:
            return None
        return signal.Signals(-code)

    def failure(self, since=0):
        """A description of a sanitizer report (after `since`) or a crash of the current process, else None."""
        reports = self.sanitizer_reports(since)
        crash = self.crashed()
        if not reports and crash is None:
            return None
        what = [f"sanitizer report: {reports[0].strip()}"] if reports else []
        if crash is not None:
            what.append(f"died from {crash.name} (not sent by the harness)")
        return f"{self.name}: " + "; ".join(what) + f" (log: {self.log_path})"

    # --- registry -------------------------------------------------------------------------
    @classmethod
    def instances(cls):
        with cls._instances_lock:
            return list(cls._instances)

    def unregister(self):
        """Drop this broker from the registry (harness self-tests whose broker crashes on purpose)."""
        with Broker._instances_lock:
            if self in Broker._instances:
                Broker._instances.remove(self)

    @classmethod
    def cleanup_all(cls):
        """Kill every broker this process started that is still running."""
        for broker in cls.instances():
            try:
                if broker.alive:
                    broker.kill()
            except Exception:
                pass

    def __enter__(self):
        return self.start() if not self.alive else self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        return f"<Broker {self.name} {self.url} pid={self.pid} alive={self.alive}>"


atexit.register(Broker.cleanup_all)
