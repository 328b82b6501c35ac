"""The binary's front door (docs/configuration.md, "The command line"): --help, --version, --check-config and
unknown arguments start nothing; the version is in the boot line, GET /health and queen_build_info; a schema older
than the broker needs (queen.schema_version()) stops the boot with exit status 2 and one line."""
import os
import re
import subprocess
import time

from harness import Broker, TempDatabase, free_port, is_listening, poll_until, unique_name
from harness.env import REPO_ROOT, broker_binary, project_version

VERSION = project_version()
FLAG_EXIT_S = 5  # a flag reads the environment and prints: no database, no listener


def run_flag(args, env=None):
    """Runs the broker binary with `args` and a clean environment (PORT of its own); returns (rc, out, err, port)."""
    port = free_port()
    variables = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PORT": str(port),
                 # A database nobody answers on: a flag that tried to connect would hang or fail.
                 "PG_HOST": "127.0.0.1", "PG_PORT": str(free_port()), "PG_PASSWORD": "hunter2"}
    variables.update(env or {})
    started = time.monotonic()
    proc = subprocess.run([broker_binary(), *args], env=variables, capture_output=True, text=True,
                          timeout=FLAG_EXIT_S * 4)
    assert time.monotonic() - started < FLAG_EXIT_S, f"{args} took too long: {proc}"
    assert not is_listening(port), f"{args} left a listener on {port}"
    return proc.returncode, proc.stdout, proc.stderr, port


def documented_variables():
    with open(os.path.join(REPO_ROOT, "docs", "configuration.md")) as doc:
        return re.findall(r"^\| `([A-Z0-9_]+)` \|", doc.read(), re.M)


def test_version_prints_the_release_and_exits():
    rc, out, err, _ = run_flag(["--version"])
    assert (rc, out, err) == (0, f"queen-broker {VERSION}\n", "")


def test_help_lists_every_documented_variable_with_default_and_range():
    rc, out, _, _ = run_flag(["--help"])
    assert rc == 0
    names = documented_variables()
    assert len(names) > 100
    for name in names:
        assert re.search(rf"^  {name}  default .+  range .+", out, re.M), name
    assert re.search(r"^  DB_POOL_SIZE  default 25  range \[1, 10000\]$", out, re.M), out
    assert "--check-config" in out and "--healthcheck" in out


def test_check_config_prints_the_effective_values_masked_and_exits_zero():
    rc, out, err, port = run_flag(["--check-config"], {"JWT_SECRET": "s3cret", "DB_POOL_SIZE": "12"})
    assert rc == 0, err
    lines = out.splitlines()
    assert f"PORT={port}" in lines
    assert "DB_POOL_SIZE=12" in lines
    assert "PG_PASSWORD=***" in lines and "JWT_SECRET=***" in lines
    assert "LOG_LEVEL=info  (default)" in lines
    assert lines[-1] == "configuration is valid"
    assert "hunter2" not in out + err and "s3cret" not in out + err
    settings = [line for line in lines[:-1] if not line.startswith("spool directory: ")]  # test_spool_ownership.py
    assert {line.split("=", 1)[0] for line in settings} == set(documented_variables())


def test_check_config_exits_nonzero_naming_each_bad_variable():
    rc, out, err, _ = run_flag(["--check-config"], {"DB_POOL_SIZE": "0", "LOG_LEVEL": "chatty"})
    assert rc == 2, (out, err)
    assert "DB_POOL_SIZE=0 is out of range [1, 10000]" in err
    assert "LOG_LEVEL='chatty'" in err


def test_check_config_checks_what_the_boot_checks_beyond_ranges():
    # Enabled authentication with unusable key material stops a boot; --check-config says so too.
    rc, out, err, _ = run_flag(["--check-config"], {"JWT_ENABLED": "true", "JWT_ALGORITHM": "RS256",
                                                    "JWT_PUBLIC_KEY": "not a pem"})
    assert rc == 2, (out, err)
    assert "queen-broker: auth: " in err
    assert out.splitlines()[-1] == "configuration is invalid"


def test_unknown_arguments_are_refused_with_one_line():
    for args in (["--port=7000"], ["serve"], ["--version", "--help"]):
        rc, out, err, _ = run_flag(args)
        assert rc == 2 and out == "", (args, out, err)
        assert len(err.splitlines()) == 1 and err.startswith("queen-broker: "), (args, err)
    assert "unknown argument '--port=7000'" in run_flag(["--port=7000"])[2]


def test_the_version_is_in_the_boot_line_health_and_build_info(broker, client):
    assert f"queen-broker {VERSION} starting" in broker.log_text()
    assert re.search(rf"queen-broker {re.escape(VERSION)} listening on 127\.0\.0\.1:{broker.port}", broker.log_text())
    assert client.health().body["version"] == VERSION
    text = client.prometheus().body
    assert f'queen_build_info{{version="{VERSION}"}} 1' in text.splitlines()


def boot_against(target):
    """A broker on `target` that should refuse to boot: (exit status, its log)."""
    broker = Broker(pg=target, name=f"it-front-schema-{unique_name('b')}")
    broker.start(wait=False)
    try:
        poll_until(lambda: not broker.alive, timeout=30, what="the broker to exit")
        return broker.returncode, broker.log_text()
    finally:
        broker.stop()


def test_a_schema_older_than_the_broker_needs_stops_the_boot(pg):
    with TempDatabase(pg) as database:
        database.target.execute("CREATE OR REPLACE FUNCTION queen.schema_version() RETURNS text "
                                "LANGUAGE sql IMMUTABLE AS $$ SELECT '0.9.0'::text $$;")
        status, log = boot_against(database.target)
        assert status == 2, log
        lines = [line for line in log.splitlines() if "is release 0.9.0" in line]
        assert len(lines) == 1, log
        assert f"older than the {VERSION} this broker ({VERSION}) needs: deploy the migrations first" in lines[0]
        assert "critical" in lines[0] and "listening on" not in log

        database.target.execute("DROP FUNCTION queen.schema_version();")
        status, log = boot_against(database.target)
        assert status == 2, log
        assert "is release before 1.0.0 (no queen.schema_version())" in log, log


def test_a_newer_schema_is_accepted(pg):
    # Rolling upgrades deploy the schema first: a broker of the previous release keeps running against it.
    with TempDatabase(pg) as database:
        major, minor, _ = VERSION.split(".")
        newer = f"{major}.{int(minor) + 1}.0"
        database.target.execute("CREATE OR REPLACE FUNCTION queen.schema_version() RETURNS text "
                                f"LANGUAGE sql IMMUTABLE AS $$ SELECT '{newer}'::text $$;")
        broker = Broker(pg=database.target, name=f"it-front-newer-{unique_name('b')}").start()
        try:
            with broker.client() as c:
                assert c.health().body["database"] == "connected"
        finally:
            assert broker.stop() == 0
