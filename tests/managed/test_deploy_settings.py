"""scripts/db-deploy.sh refuses every DEPLOY_* value it cannot act on safely, before it connects anywhere: exit
status 2 and one line naming the variable (docs/deploy-managed-postgres.md, "The deploy's variables")."""
import os
import subprocess

import pytest

from harness import env as harness_env

SCRIPT = os.path.join(harness_env.REPO_ROOT, "scripts", "db-deploy.sh")
# A host that resolves nowhere (RFC 6761): a script that tried to connect to it would fail with libpq's own error.
REMOTE = "db.invalid"

REFUSED = {
    "a mode that falls back to plaintext": (
        {"DEPLOY_PG_SSLMODE": "prefer"},
        "DEPLOY_PG_SSLMODE must be disable, require, verify-ca or verify-full, got 'prefer'"),
    "a misspelt mode": (
        {"DEPLOY_PG_SSLMODE": "verify_full"},
        "DEPLOY_PG_SSLMODE must be disable, require, verify-ca or verify-full, got 'verify_full'"),
    "no TLS to another machine": (
        {"DEPLOY_PG_HOST": REMOTE, "DEPLOY_PG_SSLMODE": "disable"},
        f"DEPLOY_PG_SSLMODE=disable would send the password and the schema to {REMOTE} in clear"),
    "another machine without a CA (verify-full by default)": (
        {"DEPLOY_PG_HOST": REMOTE},
        "DEPLOY_PG_SSLMODE=verify-full checks the server's certificate against a CA certificate: set "
        "DEPLOY_PG_SSLROOTCERT"),
    "verify-ca without a CA": (
        {"DEPLOY_PG_HOST": REMOTE, "DEPLOY_PG_SSLMODE": "verify-ca"},
        "DEPLOY_PG_SSLMODE=verify-ca checks the server's certificate against a CA certificate"),
    "a CA file that is not there": (
        {"DEPLOY_PG_HOST": REMOTE, "DEPLOY_PG_SSLROOTCERT": "/nonexistent/ca.crt"},
        "DEPLOY_PG_SSLROOTCERT names no readable file: '/nonexistent/ca.crt'"),
    "port 0": ({"DEPLOY_PG_PORT": "0"}, "DEPLOY_PG_PORT must be a port number from 1 to 65535, got '0'"),
    "a port past 65535": ({"DEPLOY_PG_PORT": "65536"}, "DEPLOY_PG_PORT must be a port number from 1 to 65535"),
    "a port that is not a number": (
        {"DEPLOY_PG_PORT": "5432/tcp"}, "DEPLOY_PG_PORT must be a port number from 1 to 65535, got '5432/tcp'"),
    "a create flag that is not a boolean": (
        {"DEPLOY_CREATE_DATABASE": "yes"}, "DEPLOY_CREATE_DATABASE must be true or false (or 1 or 0), got 'yes'"),
    "a password flag that is not a boolean": (
        {"DEPLOY_SET_BROKER_PASSWORD": "maybe"},
        "DEPLOY_SET_BROKER_PASSWORD must be true or false (or 1 or 0), got 'maybe'"),
    "the development broker password on another machine": (
        {"DEPLOY_PG_HOST": REMOTE, "DEPLOY_PG_SSLMODE": "require", "DEPLOY_SET_BROKER_PASSWORD": "true"},
        f"DEPLOY_SET_BROKER_PASSWORD=true would give queen_broker on {REMOTE} the development password"),
}


def run_deploy(settings):
    variables = {k: v for k, v in os.environ.items()
                 if not k.startswith(("DEPLOY_", "PG")) or k in ("PGBIN",)}
    variables.update(settings)
    return subprocess.run([SCRIPT], env=variables, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("settings, message", list(REFUSED.values()), ids=list(REFUSED))
def test_a_value_it_cannot_act_on_stops_it_before_it_connects(settings, message):
    proc = run_deploy(settings)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("db-deploy: ") and message in proc.stderr, proc.stderr
    assert proc.stdout == ""
