"""The deployment files under test, and the readers they share: the systemd unit and its environment file, the
broker's own view of an environment (`queen-broker --check-config`)."""
import os
import re
import shlex
import subprocess

from harness.env import REPO_ROOT, broker_binary

SYSTEMD_DIR = os.path.join(REPO_ROOT, "deploy", "systemd")
UNIT_FILE = os.path.join(SYSTEMD_DIR, "queen-broker.service")
UNIT_ENV_FILE = os.path.join(SYSTEMD_DIR, "queen-broker.env")
KUBERNETES_DIR = os.path.join(REPO_ROOT, "deploy", "kubernetes")
# Where the unit and the image install the broker.
INSTALLED_BINARY = "/usr/local/bin/queen-broker"


def read_unit(path=UNIT_FILE):
    """{section: [(key, value), ...]} of a unit file, keys repeated as written (systemd's lists)."""
    sections, current = {}, None
    with open(path, encoding="utf-8") as unit:
        logical = ""
        for raw in unit.read().splitlines():
            if not logical and (not raw.strip() or raw.lstrip().startswith(("#", ";"))):
                continue
            if raw.endswith("\\"):
                logical += raw[:-1] + " "
                continue
            line, logical = (logical + raw).strip(), ""
            if line.startswith("[") and line.endswith("]"):
                current = sections.setdefault(line[1:-1], [])
                continue
            key, sep, value = line.partition("=")
            assert sep and current is not None, f"{path}: not a key=value line: {line}"
            current.append((key.strip(), value.strip()))
    return sections


def unit_values(unit, section, key):
    return [value for k, value in unit.get(section, []) if k == key]


def unit_value(unit, section, key, default=None):
    """The effective value of a single-valued key (the last assignment wins, as in systemd)."""
    values = unit_values(unit, section, key)
    return values[-1] if values else default


def read_env_file(path=UNIT_ENV_FILE):
    """NAME=value lines of an EnvironmentFile. The file keeps to the subset where systemd's reading and a
    plain split at the first '=' agree (no quotes, backslashes or spaces around '='), so what this returns is
    what systemd hands the broker; a line outside the subset fails the reading."""
    values = {}
    with open(path, encoding="utf-8") as env_file:
        for number, line in enumerate(env_file.read().splitlines(), 1):
            if not line.strip() or line.lstrip().startswith(("#", ";")):
                continue
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=([^\"'\\\s]([^\"'\\]*[^\"'\\\s])?)?", line)
            assert match, f"{path}:{number}: outside the NAME=value subset (no quotes, backslashes, edge spaces)"
            values[match.group(1)] = match.group(2) or ""
    return values


def unit_environment(unit):
    """The variables the unit gives the broker: its EnvironmentFile= (the repository's example stands for
    /etc/queen/queen-broker.env), then its Environment= assignments."""
    variables = {}
    for path in unit_values(unit, "Service", "EnvironmentFile"):
        assert path == "/etc/queen/queen-broker.env", f"unexpected EnvironmentFile {path}"
        variables.update(read_env_file())
    for assignment in unit_values(unit, "Service", "Environment"):
        for word in shlex.split(assignment):
            name, _, value = word.partition("=")
            variables[name] = value
    return variables


def timespan_seconds(text):
    """A systemd time span (`120s`, `65min`, `2min 30s`, `90`: seconds) in seconds."""
    units = {"us": 1e-6, "ms": 1e-3, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400}
    if text.strip() == "infinity":
        return float("inf")
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text):
        total += float(number) * units[unit or "s"]
    return total


def check_config(env, binary=None):
    """`queen-broker --check-config` in `env` only: (exit status, {NAME: value} of its report, stderr)."""
    proc = subprocess.run([binary or broker_binary(), "--check-config"], env=env, capture_output=True,
                          text=True, timeout=30)
    settings = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"([A-Z][A-Z0-9_]*)=(\S*)", line)
        if match:
            settings[match.group(1)] = match.group(2).strip("'")
    return proc.returncode, settings, proc.stderr


def effective_ms(settings, name):
    """A millisecond setting as the broker reads it (its --check-config report)."""
    return int(settings[name])
