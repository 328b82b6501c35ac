"""The upgrade suite's fixtures: the previous release (its sqitch tag and git commit, scripts/sqitch_release.py)
and the previous release's broker, built by scripts/build-previous.sh (`make build-previous`)."""
import os

import pytest

from harness import env as harness_env
from release_tools import sqitch_release


class Release:
    def __init__(self, tag, commit, broker_binary):
        self.tag, self.commit, self.broker_binary = tag, commit, broker_binary

    @property
    def target(self):
        """What sqitch calls the release: `deploy --to @v1.0.0`."""
        return f"@{self.tag}"

    def __repr__(self):
        return f"<Release {self.tag} {self.commit[:12]} {self.broker_binary}>"


@pytest.fixture(scope="session")
def release():
    """The release this tree upgrades from, with its broker. Fails (never skips) when the plan has no tag,
    the release's commit is not in this clone, or its broker was not built from that commit."""
    try:
        tag = os.environ.get("QUEEN_UPGRADE_FROM") or sqitch_release.previous_release(sqitch_release.read_plan())
        commit = sqitch_release.release_commit(tag)
    except sqitch_release.ReleaseError as exc:
        pytest.fail(str(exc), pytrace=False)
    binary = harness_env.previous_broker_binary()
    if not os.environ.get("QUEEN_PREV_BROKER_BIN"):
        stamp = os.path.join(harness_env.previous_build_dir(), "commit")
        try:
            with open(stamp) as fh:
                built = fh.read().strip()
        except OSError:
            built = None
        if built != commit:
            pytest.fail(f"the previous release's broker in {harness_env.previous_build_dir()} is "
                        f"{'not built' if built is None else 'built from ' + built[:12]}, not from {tag} "
                        f"({commit[:12]}): run `make build-previous`", pytrace=False)
    if not os.access(binary, os.X_OK):
        pytest.fail(f"no previous release's broker at {binary}: run `make build-previous`", pytrace=False)
    return Release(tag, commit, binary)
