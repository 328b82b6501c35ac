"""The spool is owned and visible (docs/operations-spool.md, "One broker per spool directory" and "Where the spool
lives"): a broker locks its spool directory for its whole life, so a second broker on the same directory (the
configured one, or the per-user fallback two brokers fell back to) refuses to start with exit status 1 and one line
naming the directory and the holder's pid, while the first keeps serving; the kernel drops the lock of a SIGKILLed
broker, so the next one starts on its directory and replays what it left; an unusable FILE_BUFFER_DIR falls back to
<TMPDIR>/queen-buffers-<uid>, and /health/ready, /metrics/prometheus and --check-config say so."""
import os
import subprocess

from harness import Broker, free_port, poll_until, unique_name
from harness.env import broker_binary

EXIT_START_FAILED = 1
REFUSAL_TIMEOUT_S = 20
FLAG_TIMEOUT_S = 20


def lock_file(spool_dir):
    return os.path.join(spool_dir, "broker.lock")


def refusal_line(spool_dir, holder_pid):
    return f"spool directory {spool_dir} is in use by another broker (pid {holder_pid})"


def wait_exit(broker):
    poll_until(lambda: not broker.alive, timeout=REFUSAL_TIMEOUT_S,
               what=lambda: f"{broker.name} to refuse to start; its log:\n{broker.log_tail(20)}")
    return broker.returncode


def push_pop_ack(client, queue):
    """One message through the broker: pushed (stored, not spooled), popped and acked."""
    pushed = client.push_one(queue, {"n": 1})
    assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
    [message] = client.pop_messages(queue, batch=1, wait=True, timeout_ms=2000)
    acked = client.ack(message["transactionId"], message["partitionId"], message["leaseId"])
    assert acked.status == 200, acked


def ready_body(broker):
    with broker.client() as client:
        ready = client.get("/health/ready")
        assert ready.status == 200, ready
        return ready.body


def fallback_gauge(broker):
    with broker.client() as client:
        return client.gauges()["queen_file_buffer_fallback"]


def unusable_setting(tmp_path):
    """A FILE_BUFFER_DIR under a regular file: it cannot be created, even by root."""
    regular = tmp_path / "not-a-directory"
    regular.write_text("a file where the spool directory's parent should be")
    return str(regular / "spool")


def per_user_fallback(tmpdir):
    return os.path.join(tmpdir, f"queen-buffers-{os.getuid()}")


def check_config(env):
    """queen-broker --check-config with a clean environment: (exit status, stdout, stderr)."""
    variables = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PORT": str(free_port()),
                 "PG_HOST": "127.0.0.1", "PG_PORT": str(free_port())}
    variables.update(env)
    proc = subprocess.run([broker_binary(), "--check-config"], env=variables, capture_output=True, text=True,
                          timeout=FLAG_TIMEOUT_S)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_second_broker_on_the_same_spool_directory_refuses_to_start_and_the_first_keeps_serving(broker_factory):
    first = broker_factory(name="own-first")
    second = broker_factory(name="own-second", spool_dir=first.spool_dir, start=False)
    second.start(wait=False)

    assert wait_exit(second) == EXIT_START_FAILED, second.log_tail(20)
    refused = second.log_text(second.start_offset)
    assert refusal_line(first.spool_dir, first.pid) in refused, refused
    assert "listening on" not in refused, refused

    with first.client() as client:
        push_pop_ack(client, unique_name("own-first"))
    assert ready_body(first)["spoolDirectory"] == {"path": first.spool_dir, "configured": first.spool_dir,
                                                   "fallback": False}
    with open(lock_file(first.spool_dir)) as lock:
        assert lock.read() == f"{first.pid}\n"
    assert f"spool directory {first.spool_dir} (FILE_BUFFER_DIR), locked by this broker (pid {first.pid})" in \
        first.log_text(first.start_offset)


def test_after_a_sigkill_the_next_broker_on_the_directory_starts_and_replays(broker_factory, pg):
    # The first broker has no database (nobody listens on its PG_PORT): every push is spooled.
    first = broker_factory(name="own-killed", env={"PG_PORT": free_port(), "DB_CONNECTION_TIMEOUT": 1000},
                           start=False)
    first.start(require_db=False)
    queue = unique_name("own-replay")
    with first.client() as client:
        for n in range(5):
            pushed = client.push_one(queue, {"n": n}, transaction_id=f"own-{n}")
            assert pushed.status == 201 and pushed.body[0]["status"] == "buffered", pushed

    # While it lives, its directory is refused to anyone else.
    intruder = broker_factory(name="own-intruder", spool_dir=first.spool_dir, start=False)
    intruder.start(wait=False)
    assert wait_exit(intruder) == EXIT_START_FAILED, intruder.log_tail(20)
    assert refusal_line(first.spool_dir, first.pid) in intruder.log_text(intruder.start_offset)

    killed_pid = first.pid
    first.kill()
    with open(lock_file(first.spool_dir)) as lock:
        assert lock.read() == f"{killed_pid}\n", "the dead broker's lock file (and pid) stays behind"

    # SIGKILL ran no cleanup, but the kernel dropped the lock: the next broker starts and replays.
    successor = broker_factory(name="own-successor", spool_dir=first.spool_dir)
    log = successor.log_text(successor.start_offset)
    assert f"locked by this broker (pid {successor.pid})" in log, log
    assert "events replayed 5" in log, log
    with open(lock_file(first.spool_dir)) as lock:
        assert lock.read() == f"{successor.pid}\n"
    with successor.client() as client:
        popped = client.pop_messages(queue, batch=10, wait=True, timeout_ms=2000)
        assert sorted(m["transactionId"] for m in popped) == [f"own-{n}" for n in range(5)], popped


def test_an_unusable_setting_falls_back_visibly_and_two_fallen_back_brokers_do_not_share(broker_factory,
                                                                                          tmp_path):
    unusable = unusable_setting(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    fallback = per_user_fallback(str(tmpdir))
    env = {"FILE_BUFFER_DIR": unusable, "TMPDIR": str(tmpdir)}

    # --check-config first: it names the fallback and why, exits 0 (the boot would start) and creates nothing.
    rc, out, err = check_config(env)
    assert rc == 0, (out, err)
    assert f"spool directory: {fallback} (fallback; FILE_BUFFER_DIR {unusable} is not usable: " in out, out
    assert "is not a directory" in out, out
    assert f"the broker would spool to the per-user fallback {fallback}" in err, err
    assert out.splitlines()[-1] == "configuration is valid", out
    assert not os.path.exists(fallback), "--check-config created the fallback directory"

    broker = broker_factory(name="own-fallback", env=env)
    spool = ready_body(broker)["spoolDirectory"]
    assert spool["path"] == fallback and spool["configured"] == unusable and spool["fallback"] is True, spool
    assert f"FILE_BUFFER_DIR {unusable} is not usable: " in spool["fallbackReason"], spool
    assert fallback_gauge(broker) == 1
    assert os.stat(fallback).st_mode & 0o777 == 0o700, "the fallback is owner-only"
    with broker.client() as client:
        push_pop_ack(client, unique_name("own-fallback"))

    # A second broker that falls back to the same per-user directory refuses it, like any held directory.
    second = broker_factory(name="own-fallback-second", env=env, start=False)
    second.start(wait=False)
    assert wait_exit(second) == EXIT_START_FAILED, second.log_tail(20)
    assert refusal_line(fallback, broker.pid) in second.log_text(second.start_offset)

    # --check-config now also says a broker started now would be refused; still exit 0 (state, not configuration).
    rc, out, err = check_config(env)
    assert rc == 0, (out, err)
    assert refusal_line(fallback, broker.pid) in err and "a broker started now would refuse to start" in err, err
    assert ready_body(broker)["spoolDirectory"]["path"] == fallback


def test_a_usable_setting_is_reported_as_such_everywhere(broker_factory, tmp_path):
    broker = broker_factory(name="own-usable")
    assert ready_body(broker)["spoolDirectory"] == {"path": broker.spool_dir, "configured": broker.spool_dir,
                                                    "fallback": False}
    assert fallback_gauge(broker) == 0

    missing = str(tmp_path / "not" / "yet")
    rc, out, err = check_config({"FILE_BUFFER_DIR": missing, "TMPDIR": str(tmp_path)})
    assert rc == 0, (out, err)
    assert f"spool directory: {missing} (FILE_BUFFER_DIR)" in out.splitlines(), out
    assert "spool" not in err, err
    assert not os.path.exists(tmp_path / "not"), "--check-config created the spool directory"


def test_check_config_fails_when_no_spool_directory_is_usable(tmp_path):
    unusable = unusable_setting(tmp_path)
    # A regular file where the fallback directory would be: a boot would stop (exit 1), so the check fails.
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    with open(per_user_fallback(str(tmpdir)), "w") as blocker:
        blocker.write("not a directory")
    rc, out, err = check_config({"FILE_BUFFER_DIR": unusable, "TMPDIR": str(tmpdir)})
    assert rc == 2, (out, err)
    assert "queen-broker: spool: no usable spool directory: " in err, err
    assert out.splitlines()[-1] == "configuration is invalid", out
