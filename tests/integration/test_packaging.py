"""Packaging (docker/Dockerfile, docs/configuration.md "Shutdown"): the image's HEALTHCHECK command, taken from the
Dockerfile as written, exits 0 against a ready broker and nonzero against one that is not ready or not there; on
SIGTERM readiness answers 503 at once while everything else is served for SHUTDOWN_GRACE_MS, then the broker drains
and exits 0."""
import json
import os
import re
import signal
import subprocess
import time

from harness import Broker, free_port, poll_until, unique_name
from harness.env import REPO_ROOT

IMAGE_BINARY = "/usr/local/bin/queen-broker"  # where the Dockerfile installs the broker
GRACE_MS = 3000


def dockerfile_healthcheck_command():
    """The exec-form CMD of the Dockerfile's HEALTHCHECK instruction, as a list."""
    with open(os.path.join(REPO_ROOT, "docker", "Dockerfile")) as dockerfile:
        lines = [line for line in dockerfile.read().splitlines() if line.startswith("HEALTHCHECK ")]
    assert len(lines) == 1, lines
    match = re.search(r"\bCMD (\[.*\])\s*$", lines[0])
    assert match, f"HEALTHCHECK is not in exec form: {lines[0]}"
    command = json.loads(match.group(1))
    assert command[0] == IMAGE_BINARY, command
    return command


def run_healthcheck(broker_env):
    """The Dockerfile's command, the image's binary path mapped to the binary under test, in `broker_env`."""
    command = dockerfile_healthcheck_command()
    proc = subprocess.run([os.environ.get("QUEEN_BROKER_BIN") or command[0], *command[1:]], env=broker_env,
                          capture_output=True, text=True, timeout=10)
    return proc.returncode, proc.stdout + proc.stderr


def test_the_healthcheck_uses_a_binary_the_image_has():
    command = dockerfile_healthcheck_command()
    assert command == [IMAGE_BINARY, "--healthcheck"]
    with open(os.path.join(REPO_ROOT, "docker", "Dockerfile")) as dockerfile:
        text = dockerfile.read()
    assert f"COPY --from=build /src/build/queen-broker {IMAGE_BINARY}" in text


def test_the_healthcheck_passes_on_a_ready_broker_and_fails_otherwise(pg):
    broker = Broker(pg=pg, name=f"it-pack-{unique_name('b')}", env={"SHUTDOWN_GRACE_MS": str(GRACE_MS)}).start()
    try:
        env = broker.environment()
        status, output = run_healthcheck(env)
        assert status == 0, output
        assert output.startswith("queen-broker: 200 "), output

        # Not ready: during the shutdown grace the broker still serves, but readiness answers 503.
        broker.signal(signal.SIGTERM)
        status, output = poll_until(lambda: (lambda r: r if r[0] != 0 else None)(run_healthcheck(env)),
                                    timeout=GRACE_MS / 1000, what="the healthcheck to fail")
        assert status == 1 and "503" in output and "shutting down" in output, output
        poll_until(lambda: not broker.alive, timeout=GRACE_MS / 1000 + 30, what="the broker to exit")
        assert broker.returncode == 0

        # Nothing there at all.
        status, output = run_healthcheck(env)
        assert status == 1 and "no answer from 127.0.0.1:" in output, output
    finally:
        broker.stop()


def test_sigterm_fails_readiness_serves_through_the_grace_then_drains(pg):
    broker = Broker(pg=pg, name=f"it-pack-grace-{unique_name('b')}",
                    env={"SHUTDOWN_GRACE_MS": str(GRACE_MS)}).start()
    queue = unique_name("grace")
    try:
        with broker.client() as c:
            assert c.get("/health/ready").status == 200
            signalled = time.monotonic()
            broker.signal(signal.SIGTERM)
            ready = poll_until(lambda: (lambda r: r if r.status == 503 else None)(c.get("/health/ready")),
                               timeout=2, what="readiness to answer 503")
            assert ready.body["status"] == "not_ready" and ready.body["reason"] == "shutting down", ready
            assert ready.body["database"] == "connected", ready  # the same shape as any readiness answer
            # Still serving everything else: liveness, a push and the pop of it.
            assert c.health().status == 200
            assert c.push_one(queue, {"n": 1}).status == 201
            popped = c.pop_messages(queue, wait=False)
            assert [m["data"] for m in popped] == [{"n": 1}]
            assert time.monotonic() - signalled < GRACE_MS / 1000, "the checks above outlasted the grace"
        poll_until(lambda: not broker.alive, timeout=GRACE_MS / 1000 + 30, what="the broker to exit")
        assert broker.returncode == 0
        assert time.monotonic() - signalled >= GRACE_MS / 1000
        log = broker.log_text()
        assert f"readiness now answers 503; serving {GRACE_MS} ms more (SHUTDOWN_GRACE_MS)" in log
        assert log.index("readiness now answers 503") < log.index("draining in-flight requests")
        assert "queen-broker stopped" in log
    finally:
        broker.stop()


def test_a_second_signal_ends_the_grace(pg):
    broker = Broker(pg=pg, name=f"it-pack-second-{unique_name('b')}", env={"SHUTDOWN_GRACE_MS": "600000"}).start()
    try:
        broker.signal(signal.SIGTERM)
        broker.wait_for_log("readiness now answers 503", timeout=10)
        broker.signal(signal.SIGTERM)
        poll_until(lambda: not broker.alive, timeout=30, what="the broker to exit")
        assert broker.returncode == 0
        assert "during the grace, stopping now" in broker.log_text()
    finally:
        broker.stop()


def test_without_a_grace_sigterm_drains_at_once(pg):
    broker = Broker(pg=pg, name=f"it-pack-nograce-{unique_name('b')}").start()
    try:
        broker.signal(signal.SIGTERM)
        poll_until(lambda: not broker.alive, timeout=30, what="the broker to exit")
        assert broker.returncode == 0
        assert "readiness now answers 503" not in broker.log_text()
    finally:
        broker.stop()
