"""deploy/systemd/queen-broker.service and its environment file (docs/deploy.md, "systemd").

systemd itself checks the unit (`systemd-analyze verify`, and `systemd-analyze security` holds its hardening to an
exposure level), and the unit's own lines run the broker here: ExecStart with the unit's environment (the
example environment file, with the database, port and state directory of this test), ExecStartPost as the
readiness gate, KillSignal within TimeoutStopSec, and the exit statuses its restart policy is written for.
"""
import json
import os
import re
import shlex
import signal
import subprocess
import time

import pytest

from deploy_paths import (INSTALLED_BINARY, UNIT_FILE, check_config, effective_ms, read_env_file, read_unit,
                          timespan_seconds, unit_environment, unit_value, unit_values)
from harness import Broker, HttpClient, free_port, poll_until, unique_name
from harness.env import broker_binary, new_tmp_dir

# The unit's sandbox may expose no more than this (systemd-analyze security, in tenths: 1.5 of 10).
MAX_EXPOSURE_TENTHS = 15
# Startup recovery replays the spool for at most this long before the listener binds (src/spool/spool.h).
SPOOL_RECOVERY_BUDGET_S = 3600


@pytest.fixture(scope="module")
def unit():
    return read_unit()


def unit_for_this_machine(tmp_dir, text=None):
    """The unit file with the installed binary's path replaced by the broker under test (systemd-analyze checks
    that the commands exist)."""
    with open(UNIT_FILE, encoding="utf-8") as unit_file:
        text = text or unit_file.read()
    path = os.path.join(tmp_dir, "queen-broker.service")
    with open(path, "w", encoding="utf-8") as unit_file:
        unit_file.write(text.replace(INSTALLED_BINARY, broker_binary()))
    return path


def analyze(*args):
    proc = subprocess.run(["systemd-analyze", *args], capture_output=True, text=True, timeout=120)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def command_words(line):
    """An Exec*= line as the words systemd runs, the installed binary mapped to the one under test. The unit
    keeps to lines whose systemd reading is the shell's: no prefixes (-, +, !, @) and no $ expansion."""
    words = shlex.split(line)
    assert words and words[0].startswith("/"), f"not an absolute command: {line}"
    assert "$" not in line, f"systemd expands $ in Exec lines; this test does not: {line}"
    return [word.replace(INSTALLED_BINARY, broker_binary()) for word in words]


def state_directory_path(unit, image_path):
    """Where a path below /var/lib/<StateDirectory> lives in this test's stand-in for that directory."""
    state = unit_value(unit, "Service", "StateDirectory")
    prefix = f"/var/lib/{state}/"
    assert image_path.startswith(prefix), (
        f"FILE_BUFFER_DIR={image_path} is outside the unit's StateDirectory (/var/lib/{state}); with "
        "ProtectSystem=strict the broker could not write it and would spool to a temporary directory")
    return os.path.join(new_tmp_dir("systemd-state"), image_path[len(prefix):])


def unit_broker(pg, unit):
    """A Broker started from the unit's ExecStart with exactly the unit's environment, but for the database, the
    port and the address (this test's) and the state directory (a directory of the test)."""
    variables = unit_environment(unit)
    for name in ("PG_HOST", "PG_PORT", "PG_DB", "PG_USER", "PG_PASSWORD", "FILE_BUFFER_DIR", "PORT", "HOST",
                 "QUEEN_SERVER_ID"):
        assert name in variables, f"the unit's environment sets no {name}"
    exec_start = command_words(unit_value(unit, "Service", "ExecStart"))
    assert exec_start == [broker_binary()], f"ExecStart runs the broker without arguments: {exec_start}"
    broker = Broker(pg=pg, name=f"systemd-{unique_name('b')}", binary=exec_start[0],
                    spool_dir=state_directory_path(unit, variables["FILE_BUFFER_DIR"]))
    mapped = {"PORT": str(broker.port), "HOST": "127.0.0.1", "FILE_BUFFER_DIR": broker.spool_dir,
              "QUEEN_SERVER_ID": broker.name, **pg.broker_env()}
    # Variables the harness adds by default are dropped unless the unit sets them too.
    broker.extra_env = {"LOG_LEVEL": None, "DB_POOL_SIZE": None, **variables, **mapped}
    return broker


def test_systemd_analyze_verify_finds_nothing(tmp_path):
    status, output = analyze("verify", "--man=no", unit_for_this_machine(str(tmp_path)))
    assert status == 0 and output == "", output


def test_verify_reports_a_broken_line(tmp_path):
    """The check above can fail: systemd-analyze verify exits 0 on a key it ignores, but says so."""
    with open(UNIT_FILE, encoding="utf-8") as unit_file:
        broken = unit_file.read().replace("Restart=on-failure", "Restart=on-failure\nRestartOn=failure")
    status, output = analyze("verify", "--man=no", unit_for_this_machine(str(tmp_path), broken))
    assert "Unknown key 'RestartOn'" in output, (status, output)


def test_the_sandbox_exposure_stays_low(tmp_path):
    path = unit_for_this_machine(str(tmp_path))
    status, output = analyze("security", "--offline=yes", f"--threshold={MAX_EXPOSURE_TENTHS}", path)
    assert status == 0, output
    assert "Overall exposure level for queen-broker.service" in output, output


def test_the_environment_file_passes_the_deploy_gate(pg, unit):
    """queen-broker --check-config with what the unit gives the broker (the database of this test)."""
    broker = unit_broker(pg, unit)
    status, settings, stderr = check_config(broker.environment())
    assert status == 0, stderr
    assert "warning" not in stderr, stderr
    assert settings["FILE_BUFFER_DIR"] == broker.spool_dir


def test_the_environment_file_keeps_to_what_systemd_reads_verbatim(tmp_path):
    """read_env_file refuses what systemd would read differently (quotes): its reading is systemd's."""
    quoted = tmp_path / "quoted.env"
    quoted.write_text('PG_PASSWORD="secret"\n')
    with pytest.raises(AssertionError, match="outside the NAME=value subset"):
        read_env_file(str(quoted))
    assert read_env_file()["FILE_BUFFER_DIR"] == "/var/lib/queen/buffers"


def test_the_stop_timeout_covers_the_drain(pg, unit):
    """TimeoutStopSec lies above everything a SIGTERM may take with the unit's settings: the readiness grace, the
    HTTP drain, and the database call the spool drain and the jobs each finish."""
    _, settings, stderr = check_config(unit_broker(pg, unit).environment())
    assert settings, stderr
    needed_ms = (effective_ms(settings, "SHUTDOWN_GRACE_MS") + effective_ms(settings, "HTTP_DRAIN_TIMEOUT_MS")
                 + 2 * effective_ms(settings, "DB_STATEMENT_TIMEOUT"))
    stop_s = timespan_seconds(unit_value(unit, "Service", "TimeoutStopSec"))
    assert stop_s * 1000 > needed_ms, (stop_s, needed_ms)
    assert unit_value(unit, "Service", "KillSignal", "SIGTERM") == "SIGTERM"
    assert timespan_seconds(unit_value(unit, "Service", "TimeoutStartSec")) > SPOOL_RECOVERY_BUDGET_S


def test_the_unit_starts_the_broker_becomes_active_when_ready_and_stops_it(pg, unit):
    broker = unit_broker(pg, unit)
    env = broker.environment()
    exec_start_post = command_words(unit_value(unit, "Service", "ExecStartPost"))
    # The readiness gate, started before the broker: it must not finish before the broker answers.
    gate = subprocess.Popen(exec_start_post, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        assert gate.poll() is None, "ExecStartPost ended with nothing listening"
        broker.start()
        assert gate.wait(timeout=30) == 0, gate.stdout.read()

        with HttpClient(broker.url) as client:
            ready = client.get("/health/ready")
            assert ready.status == 200, ready.body
            spool = ready.body["spoolDirectory"]
            assert spool["path"] == broker.spool_dir and spool["fallback"] is False, spool

        grace_s = int(env["SHUTDOWN_GRACE_MS"]) / 1000
        stop_s = timespan_seconds(unit_value(unit, "Service", "TimeoutStopSec"))
        signalled = time.monotonic()
        broker.signal(getattr(signal, unit_value(unit, "Service", "KillSignal", "SIGTERM")))
        poll_until(lambda: not broker.alive, timeout=stop_s, what="the broker to exit within TimeoutStopSec")
        assert broker.returncode == 0, broker.log_tail()
        assert time.monotonic() - signalled >= grace_s
        assert "queen-broker stopped" in broker.log_text()
    finally:
        if gate.poll() is None:
            os.killpg(gate.pid, signal.SIGKILL)
            gate.wait()
        broker.stop()


def test_the_restart_policy_matches_the_exit_statuses(pg, unit):
    """Restart=on-failure with RestartPreventExitStatus=2: a refused configuration (2) is not retried, a failed
    start (1: here, the spool directory held by a broker still running) is."""
    assert unit_value(unit, "Service", "Restart") == "on-failure"
    prevented = " ".join(unit_values(unit, "Service", "RestartPreventExitStatus")).split()
    assert prevented == ["2"], prevented

    broker = unit_broker(pg, unit)
    refused = subprocess.run([broker.binary], env={**broker.environment(), "JWT_ENABLED": "yes"},
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2, refused.stderr

    broker.start()
    try:
        second = subprocess.run([broker.binary], env={**broker.environment(), "PORT": str(free_port())},
                                capture_output=True, text=True, timeout=30)
        assert second.returncode == 1, second.stdout + second.stderr
        assert "is in use by another broker" in second.stdout + second.stderr
    finally:
        broker.stop()


def test_the_readiness_gate_waits_on_a_broker_that_is_not_ready(pg, unit):
    """ExecStartPost keeps waiting while the port answers 503 (a broker in its shutdown grace)."""
    broker = unit_broker(pg, unit)
    broker.extra_env.update(SHUTDOWN_GRACE_MS="600000", ACCESS_LOG="true", LOG_FORMAT="json")
    broker.start()
    gate = None

    def refused_readiness_asks():
        lines = [line[line.index("{"):] for line in broker.log_text().splitlines() if '"event":"access"' in line]
        return sum(1 for entry in map(json.loads, lines)
                   if entry.get("path") == "/health/ready" and entry.get("status") == 503)

    try:
        broker.signal(signal.SIGTERM)
        broker.wait_for_log("readiness now answers 503", timeout=10)
        gate = subprocess.Popen(command_words(unit_value(unit, "Service", "ExecStartPost")),
                                env=broker.environment(), start_new_session=True)
        poll_until(lambda: refused_readiness_asks() >= 2, timeout=15, what="the gate to ask twice and get 503")
        assert gate.poll() is None, "ExecStartPost ended on a broker that answers 503"
    finally:
        if gate is not None and gate.poll() is None:
            os.killpg(gate.pid, signal.SIGKILL)
            gate.wait()
        if broker.alive:
            broker.signal(signal.SIGTERM)  # a second signal ends the grace
            poll_until(lambda: not broker.alive, timeout=60, what="the broker to exit")


def syscall_group(name, cache={}):
    """The system calls of a systemd group (@system-service ...), nested groups expanded."""
    if name not in cache:
        _, output = analyze("syscall-filter", name)
        calls = set()
        for line in output.splitlines()[1:]:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            calls |= syscall_group(line) if line.startswith("@") else {line}
        cache[name] = calls
    return cache[name]


def allowed_syscalls(unit):
    """What the unit's SystemCallFilter= lines let through: the allow lists minus the `~` deny lists."""
    allowed, denied = set(), set()
    for line in unit_values(unit, "Service", "SystemCallFilter"):
        deny = line.startswith("~")
        for entry in line.lstrip("~").split():
            calls = syscall_group(entry) if entry.startswith("@") else {entry}
            (denied if deny else allowed).update(calls)
    return allowed - denied


STRACE_CALL = re.compile(r"^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)[( ]")


def test_the_broker_stays_within_the_units_sandbox(pg, unit, temp_database):
    """The broker under strace, with the unit's environment, through a boot, a push, pop and ack, spooled pushes
    (push maintenance) and their replay, the metrics, and a SIGTERM: every system call it made passes the unit's
    SystemCallFilter, every socket is of RestrictAddressFamilies, no mapping is both writable and executable
    (MemoryDenyWriteExecute), and it writes nowhere but its state directory (ProtectSystem=strict)."""
    database = temp_database()
    broker = unit_broker(database.target, unit)
    trace_path = os.path.join(broker.base_dir, "strace.txt")
    # cwd /: the working directory systemd gives a service without WorkingDirectory=.
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-s", "256", "-o", trace_path, "--", broker.binary], cwd="/",
                              env=broker.environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    queue = unique_name("sandbox")
    try:
        broker_pid = poll_until(lambda: open(f"/proc/{tracer.pid}/task/{tracer.pid}/children").read().split(),
                                timeout=10, what="strace to start the broker")[0]
        with HttpClient(broker.url, timeout=10) as probe:
            poll_until(lambda: probe.get("/health/ready").status == 200, timeout=60,
                       what="the traced broker to be ready")
        with broker.client() as client:
            assert client.push_one(queue, {"n": 1}).body[0]["status"] == "queued"
            popped = client.pop_messages(queue, wait=False)
            assert client.ack(popped[0]["transactionId"], popped[0]["partitionId"],
                              lease_id=popped[0].get("leaseId")).status == 200
            assert client.set_maintenance(True).status == 200
            assert client.push_one(queue, {"n": 2}).body[0]["status"] == "buffered"
            assert client.set_maintenance(False).status == 200
            assert [m["data"] for m in client.drain(queue, 1, timeout=30)] == [{"n": 2}]
            assert client.get("/metrics/prometheus").status == 200
            assert client.get("/metrics").status == 200
        os.kill(int(broker_pid), signal.SIGTERM)
        assert tracer.wait(timeout=timespan_seconds(unit_value(unit, "Service", "TimeoutStopSec"))) == 0
    finally:
        if tracer.poll() is None:
            os.killpg(tracer.pid, signal.SIGKILL)
            tracer.wait()

    with open(trace_path, encoding="utf-8", errors="replace") as trace_file:
        trace = trace_file.read().splitlines()
    made = {match.group(1) for match in map(STRACE_CALL.match, trace) if match}
    # The trace saw the process start, serve and write (a trace that missed them would prove nothing).
    assert {"execve", "bind", "openat", "rename"} <= made and made & {"accept", "accept4"}, sorted(made)
    assert not made - allowed_syscalls(unit), f"outside SystemCallFilter: {sorted(made - allowed_syscalls(unit))}"

    families = set(" ".join(unit_values(unit, "Service", "RestrictAddressFamilies")).split())
    used = set(re.findall(r"\bsocket\((AF_[A-Z0-9]+)", "\n".join(trace)))
    assert used and used <= families, (used, families)

    write_exec = [line for line in trace if re.search(r"\b(mmap|mprotect|pkey_mprotect)\(", line)
                  and "PROT_WRITE" in line and "PROT_EXEC" in line]
    assert not write_exec, write_exec[:5]

    spool = broker.spool_dir.rstrip("/") + "/"
    written = []
    for line in trace:
        match = re.search(r'\b(?:openat|open|creat)\((?:AT_FDCWD, |\d+, )?"([^"]+)", ([A-Z_|]+)', line)
        if match and re.search(r"O_WRONLY|O_RDWR|O_CREAT", match.group(2)):
            written.append(match.group(1))
        match = re.search(r'\b(?:mkdir|mkdirat|unlink|unlinkat|rename|renameat2?)\((?:AT_FDCWD, |\d+, )?"([^"]+)"',
                          line)
        if match:
            written.append(match.group(1))
    outside = sorted({path for path in written if not (path + "/").startswith(spool)
                      and not path.startswith(("/dev/null", "/proc/self/", "/proc/thread-self/"))})
    assert written and not outside, outside
