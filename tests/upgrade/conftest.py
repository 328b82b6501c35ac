"""The upgrade suite's fixtures: the previous release (its sqitch tag and git commit) and the previous release's
broker, built by scripts/build-previous.sh (`make build-previous`); harness/release.py finds them."""
import pytest

from harness.release import ReleaseUnavailable, previous_release


@pytest.fixture(scope="session")
def release():
    """The release this tree upgrades from, with its broker. Fails (never skips) when the plan has no tag,
    the release's commit is not in this clone, or its broker was not built from that commit."""
    try:
        return previous_release()
    except ReleaseUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
