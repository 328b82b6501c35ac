"""Every setting fails closed (docs/configuration.md, "Reading rules" and "The deploy gate"): a value that does not
parse, a near-miss variable name or a malformed encryption key makes `queen-broker --check-config` exit 2 and the
boot exit 2 before it opens a database connection or a port, each with one line per problem naming the variable;
a valid configuration still boots, and --check-config then exits 0 and says which values were set."""
import os
import subprocess
import tempfile
import time

import pytest

from harness import Broker, free_port, is_listening
from harness.env import broker_binary

EXIT_S = 5  # reading the environment needs no database and no listener
KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"


def clean_env(extra):
    """A minimal environment: its own PORT and spool, and a database nobody answers on (a boot that got past its
    configuration would come up in spool mode and listen, which the tests below would see)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PORT": str(free_port()), "HOST": "127.0.0.1",
           "PG_HOST": "127.0.0.1", "PG_PORT": str(free_port()), "PG_PASSWORD": "hunter2",
           "FILE_BUFFER_DIR": tempfile.mkdtemp(prefix="queen-cfg-")}
    env.update(extra)
    return env


def problem_lines(err):
    return [line for line in err.splitlines()
            if line.startswith("queen-broker: ") and not line.startswith("queen-broker: warning: ")]


def check_config(extra):
    env = clean_env(extra)
    proc = subprocess.run([broker_binary(), "--check-config"], env=env, capture_output=True, text=True,
                          timeout=EXIT_S * 4)
    return proc.returncode, proc.stdout, proc.stderr


def boot(extra):
    """Starts the broker itself; returns (exit status, stdout, stderr) once it exits, failing if it stays up."""
    env = clean_env(extra)
    started = time.monotonic()
    proc = subprocess.Popen([broker_binary()], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=EXIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the broker booted with {extra} (still running after {EXIT_S} s):\n{out}\n{err}")
    assert time.monotonic() - started < EXIT_S
    assert not is_listening(int(env["PORT"]))
    return proc.returncode, out, err


# (environment, the text of each expected problem line, one per line)
REFUSED = {
    "JWT_ENABLED=yes": ({"JWT_ENABLED": "yes"},
                        ["JWT_ENABLED='yes' is not a boolean (accepted: true, false (in any case), 1 or 0)"]),
    "JWT_ENABLED=on": ({"JWT_ENABLED": "on"},
                       ["JWT_ENABLED='on' is not a boolean (accepted: true, false (in any case), 1 or 0)"]),
    "JWT_ENABLED='true '": ({"JWT_ENABLED": "true "},
                            ["JWT_ENABLED='true ' has leading or trailing whitespace "
                             "(accepted: true, false (in any case), 1 or 0)"]),
    "PG_USE_SSL=yes": ({"PG_USE_SSL": "yes"},
                       ["PG_USE_SSL='yes' is not a boolean (accepted: true, false (in any case), 1 or 0)"]),
    "DB_POOL_SIZE=abc and LOG_LEVEL=chatty": (
        {"DB_POOL_SIZE": "abc", "LOG_LEVEL": "chatty"},
        ["LOG_LEVEL='chatty' is not one of trace, debug, info, warn, error",
         "DB_POOL_SIZE='abc' is not an integer (accepted: decimal digits, optionally preceded by '-')"]),
    "DB_POOL_SIZE='25 '": ({"DB_POOL_SIZE": "25 "},
                           ["DB_POOL_SIZE='25 ' has leading or trailing whitespace "
                            "(accepted: decimal digits, optionally preceded by '-')"]),
    "DB_POOL_SIZ=5": ({"DB_POOL_SIZ": "5"},
                      ["DB_POOL_SIZ=5 is not a queen-broker variable; did you mean DB_POOL_SIZE?"]),
    "QUEEN_ENCRYPTION_KEY not hex": ({"QUEEN_ENCRYPTION_KEY": "zz" + KEY[2:]},
                                     ["QUEEN_ENCRYPTION_KEY=*** must contain hexadecimal characters only (0-9, a-f)"]),
    "QUEEN_ENCRYPTION_KEY too short": ({"QUEEN_ENCRYPTION_KEY": KEY[:62]},
                                       ["QUEEN_ENCRYPTION_KEY=*** must be exactly 64 hexadecimal characters "
                                        "(32 bytes)"]),
    "QUEEN_ENCRYPTION_KEY_PREVIOUS malformed": (
        {"QUEEN_ENCRYPTION_KEY": KEY, "QUEEN_ENCRYPTION_KEY_PREVIOUS": KEY + "0"},
        ["QUEEN_ENCRYPTION_KEY_PREVIOUS=*** must be exactly 64 hexadecimal characters (32 bytes)"]),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_check_config_refuses_with_one_line_per_problem(case):
    env, expected = REFUSED[case]
    rc, out, err = check_config(env)
    assert rc == 2, (out, err)
    assert problem_lines(err) == [f"queen-broker: {line}" for line in expected], err
    assert out.splitlines()[-1] == "configuration is invalid"
    assert "hunter2" not in out + err and "zz" + KEY[2:8] not in out + err and KEY[:40] not in out + err


@pytest.mark.parametrize("case", list(REFUSED))
def test_the_boot_refuses_the_same_with_the_same_lines(case):
    env, expected = REFUSED[case]
    rc, out, err = boot(env)
    assert rc == 2, (out, err)
    assert problem_lines(err) == [f"queen-broker: {line}" for line in expected], err
    assert "listening on" not in out + err


def test_a_valid_configuration_passes_and_says_what_was_set_and_what_defaulted():
    rc, out, err = check_config({"JWT_ENABLED": "True", "JWT_SECRET": "s3cret", "PG_USE_SSL": "0",
                                 "DB_POOL_SIZE": "12", "LOG_LEVEL": "", "QUEEN_ENCRYPTION_KEY": KEY})
    assert rc == 0, (out, err)
    lines = out.splitlines()
    assert lines[-1] == "configuration is valid"
    assert "JWT_ENABLED=true" in lines and "PG_USE_SSL=false" in lines and "DB_POOL_SIZE=12" in lines
    assert "LOG_LEVEL=info  (default: set empty)" in lines
    assert "HTTP_MAX_THREADS=64  (default)" in lines
    assert "QUEEN_ENCRYPTION_KEY=***" in lines and "JWT_SECRET=***" in lines
    assert problem_lines(err) == [], err


def test_other_names_with_our_prefixes_are_warnings_not_errors():
    # A Kubernetes service named "queen" puts QUEEN_PORT and QUEEN_SERVICE_HOST into every pod of its namespace.
    rc, out, err = check_config({"QUEEN_PORT": "tcp://10.0.0.1:6632", "QUEEN_SERVICE_HOST": "10.0.0.1",
                                 "HTTP_PROXY": "http://proxy:3128"})
    assert rc == 0, (out, err)
    warnings = [line for line in err.splitlines() if line.startswith("queen-broker: warning: ")]
    assert "queen-broker: warning: QUEEN_PORT is not a queen-broker variable (closest: QUEEN_MESH_PORT); ignored" \
        in warnings, err
    assert len(warnings) == 3, err
    assert "10.0.0.1" not in err


def test_a_valid_configuration_boots_and_logs_the_unknown_names(pg):
    broker = Broker(pg=pg, name="it-config-valid",
                    env={"JWT_ENABLED": "FALSE", "PG_USE_SSL": "0", "ACCESS_LOG": "", "QUEEN_SERVICE_HOST": "10.0.0.1"})
    broker.start()
    try:
        with broker.client() as c:
            assert c.health().body["database"] == "connected"
        assert "config: QUEEN_SERVICE_HOST is not a queen-broker variable (closest: " in broker.log_text()
    finally:
        assert broker.stop() == 0
