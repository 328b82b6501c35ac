"""Fixtures of the managed-PostgreSQL suite (tests/managed, docs/deploy-managed-postgres.md).

  managed   module   a throwaway cluster set up as hosted PostgreSQL is (managed_support.start_managed_cluster)
  release   session  the previous release and its broker (harness/release.py); fails, never skips, when missing
"""
import pytest

from harness.release import ReleaseUnavailable, previous_release
from managed_support import start_managed_cluster


@pytest.fixture(scope="module")
def managed():
    managed = start_managed_cluster()
    try:
        yield managed
    finally:
        managed.cluster.destroy()


@pytest.fixture(scope="session")
def release():
    try:
        return previous_release()
    except ReleaseUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
