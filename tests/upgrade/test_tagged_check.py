"""The tagged-change check (`make test-tagged`, scripts/sqitch_release.py check-tagged) and the release lookup, on
a scratch git repository with a plan of its own: an edit of any script of a tagged change fails the check, sqitch's
own rework passes it, and a release is found by git tag or by the commit that added its tag line."""
import os
import shutil
import subprocess

import pytest

from harness import env as harness_env
from harness.release import sqitch_release

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@queen.local", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@queen.local", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
SQITCH_CONF = """[core]
\tengine = pg
\ttop_dir = migrations
[user]
\tname = t
\temail = t@queen.local
"""


class Repo:
    def __init__(self, root):
        self.root = root

    def run(self, *cmd):
        proc = subprocess.run(list(cmd), cwd=self.root, capture_output=True, text=True,
                              env=dict(os.environ, **GIT_ENV))
        assert proc.returncode == 0, f"{cmd}: {proc.stdout}{proc.stderr}"
        return proc.stdout.strip()

    def commit(self, message):
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "-m", message)
        return self.run("git", "rev-parse", "HEAD")

    def path(self, relative):
        return os.path.join(self.root, relative)

    def append(self, relative, text):
        with open(self.path(relative), "a") as fh:
            fh.write(text)

    def check(self):
        """(problems, output of the command line) of the check on this repository."""
        problems = sqitch_release.tagged_differences(self.root)
        proc = subprocess.run([os.path.join(harness_env.REPO_ROOT, "scripts", "sqitch_release.py"), "check-tagged"],
                              capture_output=True, text=True, env=dict(os.environ, QUEEN_REPO_ROOT=self.root))
        assert (proc.returncode == 0) == (not problems), (proc.returncode, problems, proc.stderr)
        return problems, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def template():
    """A repository with changes `first` and `second`, committed, then tagged @v1.0.0 in a second commit."""
    r = Repo(harness_env.new_tmp_dir("tagged-check"))
    r.run("git", "init", "-q", "-b", "main")
    with open(r.path("sqitch.conf"), "w") as fh:
        fh.write(SQITCH_CONF)
    os.makedirs(r.path("migrations"))
    with open(r.path("migrations/sqitch.plan"), "w") as fh:
        fh.write("%syntax-version=1.0.0\n%project=toy\n\n")
    for name in ("first", "second"):
        r.run("sqitch", "add", name, "-n", f"the {name} change")
        r.append(f"migrations/deploy/{name}.sql", f"-- {name} v1\n")
    r.untagged = r.commit("two changes")
    r.run("sqitch", "tag", "v1.0.0", "-n", "release")
    r.release = r.commit("release v1.0.0")
    return r


@pytest.fixture
def repo(template):
    """A copy of the template of the test's own."""
    r = Repo(os.path.join(harness_env.new_tmp_dir("tagged-check"), "repo"))
    shutil.copytree(template.root, r.root, symlinks=True)
    r.untagged, r.release = template.untagged, template.release
    return r


def test_a_plan_without_tags_has_nothing_to_keep(repo):
    repo.run("git", "checkout", "-q", repo.untagged)
    assert repo.check()[0] == []


def test_the_tagged_tree_passes_and_a_change_after_the_tag_is_free(repo):
    assert repo.check()[0] == []
    repo.run("sqitch", "add", "third", "-n", "after the release")
    repo.append("migrations/deploy/third.sql", "-- third\n")
    assert repo.check()[0] == []
    repo.commit("third")
    repo.append("migrations/deploy/third.sql", "-- edited before its release: allowed\n")
    assert repo.check()[0] == []


@pytest.mark.parametrize("kind", ["deploy", "revert", "verify"])
def test_an_edited_script_of_a_tagged_change_fails(repo, kind):
    repo.append(f"migrations/{kind}/first.sql", "-- edited after the release\n")
    problems, output = repo.check()
    assert len(problems) == 1 and f"migrations/{kind}/first.sql differs" in problems[0][1], problems
    assert "sqitch rework first" in output, output
    repo.commit("committed, the edit still fails")
    assert len(repo.check()[0]) == 1


def test_a_deleted_script_of_a_tagged_change_fails(repo):
    os.remove(repo.path("migrations/verify/second.sql"))
    problems, _ = repo.check()
    assert ["verify/second.sql is missing" in p for _, p in problems] == [True], problems


def test_the_plan_up_to_the_tag_is_kept(repo):
    plan = repo.path("migrations/sqitch.plan")
    with open(plan) as fh:
        text = fh.read()
    with open(plan, "w") as fh:
        fh.write(text.replace("the first change", "renamed note"))
    problems, _ = repo.check()
    assert any("sqitch.plan up to @v1.0.0 differs" in p for _, p in problems), problems


def test_sqitch_rework_passes_and_the_kept_copy_is_tagged_too(repo):
    repo.run("sqitch", "rework", "first", "-n", "first, reworked after the release")
    assert os.path.exists(repo.path("migrations/deploy/first@v1.0.0.sql"))
    repo.append("migrations/deploy/first.sql", "-- first v2\n")
    assert repo.check()[0] == []
    repo.commit("rework first")
    repo.append("migrations/deploy/first.sql", "-- first v2, edited again: not released yet\n")
    assert repo.check()[0] == []
    repo.append("migrations/deploy/first@v1.0.0.sql", "-- the released copy edited\n")
    problems, _ = repo.check()
    assert ["deploy/first@v1.0.0.sql differs" in p for _, p in problems] == [True], problems


def test_a_second_release_keeps_both_tags_and_reworks_before_it(repo):
    repo.run("sqitch", "rework", "first", "-n", "first v2")
    repo.append("migrations/deploy/first.sql", "-- first v2\n")
    repo.commit("rework first")
    repo.run("sqitch", "tag", "v1.1.0", "-n", "second release")
    repo.commit("release v1.1.0")
    assert repo.check()[0] == []
    # At a release commit the upgrade to test is the one the release makes; after it, from the release.
    assert sqitch_release.previous_release(sqitch_release.read_plan(repo.root)) == "v1.0.0"
    repo.run("sqitch", "add", "third", "-n", "after the second release")
    assert sqitch_release.previous_release(sqitch_release.read_plan(repo.root)) == "v1.1.0"
    repo.append("migrations/deploy/first.sql", "-- v1.1.0's first edited\n")
    problems, _ = repo.check()
    assert [tag for tag, _ in problems] == ["v1.1.0"], problems


def test_the_release_is_the_git_tag_or_else_the_commit_that_added_the_tag_line(repo):
    repo.run("sqitch", "add", "third", "-n", "after the release")
    later = repo.commit("third")
    assert sqitch_release.release_commit("v1.0.0", repo.root) == repo.release
    assert sqitch_release.previous_release(sqitch_release.read_plan(repo.root)) == "v1.0.0"
    repo.run("git", "tag", "v1.0.0", later)
    assert sqitch_release.release_commit("v1.0.0", repo.root) == later
    repo.run("git", "tag", "-f", "v1.0.0", repo.untagged)
    with pytest.raises(sqitch_release.ReleaseError, match="git tag v1.0.0 .* has no line @v1.0.0"):
        sqitch_release.release_commit("v1.0.0", repo.root)


def test_a_tag_line_withdrawn_before_its_release_is_not_the_release(repo):
    """A plan that dropped its tag line and wrote it again later (another date): without a git tag the release
    is the commit of the line the plan carries now, not the first commit with a tag of that name."""
    plan = repo.path("migrations/sqitch.plan")
    with open(plan) as fh:
        lines = fh.read().splitlines(keepends=True)
    with open(plan, "w") as fh:
        fh.writelines(line for line in lines if not line.startswith("@v1.0.0 "))
    repo.commit("tag withdrawn")
    repo.run("sqitch", "tag", "v1.0.0", "-n", "release, made again")
    again = repo.commit("release v1.0.0, made again")
    assert sqitch_release.release_commit("v1.0.0", repo.root) == again
    assert repo.check()[0] == []


def test_a_tag_no_commit_carries_fails_with_what_to_do(repo):
    repo.run("sqitch", "tag", "v2.0.0", "-n", "not committed")
    with pytest.raises(sqitch_release.ReleaseError, match="cannot find the commit of release v2.0.0.*git fetch"):
        sqitch_release.release_commit("v2.0.0", repo.root)
    problems = subprocess.run([os.path.join(harness_env.REPO_ROOT, "scripts", "sqitch_release.py"), "check-tagged"],
                              capture_output=True, text=True, env=dict(os.environ, QUEEN_REPO_ROOT=repo.root))
    assert problems.returncode == 1 and "cannot find the commit of release v2.0.0" in problems.stderr


def test_a_plan_without_tags_has_no_previous_release(repo):
    repo.run("git", "checkout", "-q", repo.untagged)
    with pytest.raises(sqitch_release.ReleaseError, match="carries no tag"):
        sqitch_release.previous_release(sqitch_release.read_plan(repo.root))


def test_a_release_made_when_the_project_was_in_sql_migrations_is_read_from_there(repo):
    """Up to 1.1.0 the sqitch project lived in sql/migrations: the check reads a release's scripts and plan where
    that release's commit keeps them, so the move passes and an edit after it still fails."""
    repo.run("git", "checkout", "-q", "-b", "earlier", repo.untagged)
    os.makedirs(repo.path("sql"))
    repo.run("git", "mv", "migrations", "sql/migrations")
    with open(repo.path("sqitch.conf"), "w") as fh:
        fh.write(SQITCH_CONF.replace("top_dir = migrations", "top_dir = sql/migrations"))
    repo.commit("the project in sql/migrations")
    repo.run("sqitch", "tag", "v1.0.0", "-n", "release")
    released = repo.commit("release v1.0.0")
    repo.run("git", "mv", "sql/migrations", "migrations")
    with open(repo.path("sqitch.conf"), "w") as fh:
        fh.write(SQITCH_CONF)
    repo.commit("the project moves to migrations")
    assert sqitch_release.release_commit("v1.0.0", repo.root) == released
    assert repo.check()[0] == []
    repo.append("migrations/deploy/first.sql", "-- edited after the release\n")
    problems, output = repo.check()
    assert len(problems) == 1 and "migrations/deploy/first.sql differs from sql/migrations/deploy/first.sql" in \
        problems[0][1], problems
