"""Fixtures of the fault suite (tests/fault). The shared ones (pg_cluster, broker_factory, ...) live in
tests/conftest.py; this adds a tiny filesystem for "the spool volume fills up".
"""
import subprocess

import pytest

from harness import env as harness_env

MOUNT_TIMEOUT_S = 30


@pytest.fixture
def tiny_tmpfs():
    """make(size_kib) -> path of a fresh tmpfs of that size; lazily unmounted at teardown.

    Needs root (or CAP_SYS_ADMIN), which the fault suite has here and in CI. A failed mount fails
    the test with a clear message: the check must not silently disappear.
    Request this fixture before broker_factory so the brokers are stopped before the unmount.
    """
    mounts = []

    def make(size_kib=256):
        path = harness_env.new_tmp_dir("tiny-fs")
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0755", "tmpfs", path],
                              capture_output=True, text=True, timeout=MOUNT_TIMEOUT_S)
        if proc.returncode != 0:
            pytest.fail(f"cannot mount a {size_kib} KiB tmpfs on {path} (the fault suite needs root): "
                        f"{proc.stderr.strip() or proc.stdout.strip()}", pytrace=False)
        mounts.append(path)
        return path

    yield make
    for path in mounts:
        subprocess.run(["umount", "-l", path], capture_output=True, timeout=MOUNT_TIMEOUT_S)
