"""The release this tree upgrades from: its sqitch tag and git commit (scripts/sqitch_release.py) and its broker,
built by scripts/build-previous.sh (`make build-previous`). Used by the suites that start from a release's schema
(tests/upgrade, tests/managed)."""
import importlib.util
import os

from . import env

_spec = importlib.util.spec_from_file_location(
    "sqitch_release", os.path.join(env.REPO_ROOT, "scripts", "sqitch_release.py"))
sqitch_release = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sqitch_release)


class ReleaseUnavailable(RuntimeError):
    """The previous release cannot be used: no tag, its commit missing from the clone, or its broker not built."""


class Release:
    def __init__(self, tag, commit, broker_binary):
        self.tag, self.commit, self.broker_binary = tag, commit, broker_binary

    @property
    def target(self):
        """What sqitch calls the release: `deploy --to @v1.0.0`."""
        return f"@{self.tag}"

    def __repr__(self):
        return f"<Release {self.tag} {self.commit[:12]} {self.broker_binary}>"


def previous_release():
    """The release to upgrade from ($QUEEN_UPGRADE_FROM, else the plan's previous tag) with its broker. Raises
    ReleaseUnavailable (suites fail on it, never skip) when the plan has no tag, the release's commit is not in this
    clone, or its broker was not built from that commit."""
    try:
        tag = os.environ.get("QUEEN_UPGRADE_FROM") or sqitch_release.previous_release(sqitch_release.read_plan())
        commit = sqitch_release.release_commit(tag)
    except sqitch_release.ReleaseError as exc:
        raise ReleaseUnavailable(str(exc)) from exc
    binary = env.previous_broker_binary()
    if not os.environ.get("QUEEN_PREV_BROKER_BIN"):
        stamp = os.path.join(env.previous_build_dir(), "commit")
        try:
            with open(stamp) as fh:
                built = fh.read().strip()
        except OSError:
            built = None
        if built != commit:
            raise ReleaseUnavailable(
                f"the previous release's broker in {env.previous_build_dir()} is "
                f"{'not built' if built is None else 'built from ' + built[:12]}, not from {tag} "
                f"({commit[:12]}): run `make build-previous`")
    if not os.access(binary, os.X_OK):
        raise ReleaseUnavailable(f"no previous release's broker at {binary}: run `make build-previous`")
    return Release(tag, commit, binary)
