#!/usr/bin/python3
"""Releases of the schema: the tags of sql/migrations/sqitch.plan and the git commits they were made in.

    scripts/sqitch_release.py previous          the release `make test-upgrade` upgrades from
    scripts/sqitch_release.py commit TAG        the git commit of release TAG
    scripts/sqitch_release.py check-tagged      fail when a script of a tagged change differs from its tagged version

The commit of a release is the commit of git tag TAG when that tag exists, else the first commit whose plan
carries the tag line `@TAG` as the plan carries it now, so a clone without tags (or a CI checkout of a branch)
finds it too. A shallow
clone finds neither: every command then fails with a message, never skips.

check-tagged compares, for every tag of the plan and every change it contains, the deploy, revert and verify
scripts that sqitch would run for that change (NAME.sql, or NAME@TAG.sql once `sqitch rework` has kept the
tagged version aside) with the same scripts in the commit of the tag, and the plan's lines up to the tag line
with the plan of that commit. Standard library only (docs/upgrading.md, "Changing the schema after a release").
"""
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIGRATIONS = "migrations"
PLAN = f"{MIGRATIONS}/sqitch.plan"
# Where the sqitch project lived up to release 1.1.0: a release's scripts are read where its commit keeps them.
EARLIER_MIGRATIONS = ("sql/migrations",)
SCRIPT_KINDS = ("deploy", "revert", "verify")


class ReleaseError(RuntimeError):
    pass


class Change:
    """One instance of a change in the plan (a reworked change has several, same name)."""

    def __init__(self, name, line_no):
        self.name = name
        self.line_no = line_no
        self.tags = []          # tags attached right after this change
        self.rework_tags = []   # as sqitch orders them: candidate suffixes of this instance's scripts


class Plan:
    def __init__(self, text):
        self.lines = text.splitlines()
        self.changes = []
        self.tag_lines = {}        # tag name -> index of its line in self.lines
        self.tagged = {}           # tag name -> the changes it contains (every instance up to the tag)
        self.order = []            # tag names in plan order
        self._parse()

    def _parse(self):
        by_name = {}
        for index, raw in enumerate(self.lines):
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("%"):
                continue
            word = line.split()[0]
            if word.startswith("@"):
                tag = word[1:]
                if not self.changes:
                    raise ReleaseError(f"{PLAN}:{index + 1}: tag @{tag} before any change")
                self.changes[-1].tags.append(tag)
                self.tag_lines[tag] = index
                self.tagged[tag] = list(self.changes)
                self.order.append(tag)
                continue
            change = Change(word, index)
            previous = by_name.get(word)
            if previous is not None:
                # sqitch (App::Sqitch::Plan): the tags between the two instances, newest first, then the
                # older instance's own tags; its scripts carry the first suffix whose file exists.
                position = self.changes.index(previous)
                between = []
                for later in reversed(self.changes[position + 1:]):
                    between.extend(later.tags)
                previous.rework_tags = between + previous.tags
            by_name[word] = change
            self.changes.append(change)

    def changes_after(self, tag):
        return [c for c in self.changes if c.line_no > self.tag_lines[tag]]


def read_plan(root=REPO_ROOT):
    with open(os.path.join(root, PLAN), encoding="utf-8") as fh:
        return Plan(fh.read())


def script_path(change, kind, exists, migrations=MIGRATIONS):
    """The path (relative to the repository) of the script sqitch runs for this instance of the change;
    exists(path) says whether a file is in the tree at hand (the working tree, or a commit's), whose sqitch
    project is in the folder `migrations`."""
    folder = os.path.join(migrations, kind)
    if not change.rework_tags:
        return os.path.join(folder, change.name + ".sql")
    candidates = [os.path.join(folder, f"{change.name}@{tag}.sql") for tag in change.rework_tags]
    return next((c for c in candidates if exists(c)), candidates[0])


def previous_release(plan):
    """The release an upgrade starts from: the newest tag that changes follow. At a release commit (the plan
    ends with its tag) that is the release before, so the upgrade tested is the one the new release makes; with
    a single tag and nothing after it, that tag (the upgrade to HEAD is then empty, and still runs)."""
    if not plan.order:
        raise ReleaseError(f"{PLAN} carries no tag: there is no previous release to upgrade from "
                           f"(the first release is tagged with `sqitch tag`, docs/upgrading.md)")
    for tag in reversed(plan.order):
        if plan.changes_after(tag):
            return tag
    return plan.order[-1]


def git(*args, root=REPO_ROOT, check=True):
    proc = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc


def migrations_at(commit, root=REPO_ROOT):
    """The folder of the sqitch project in `commit` (None when it has none)."""
    for folder in (MIGRATIONS,) + EARLIER_MIGRATIONS:
        if git("cat-file", "-e", f"{commit}:{folder}/sqitch.plan", root=root, check=False).returncode == 0:
            return folder
    return None


def plan_at(commit, root=REPO_ROOT):
    folder = migrations_at(commit, root)
    if folder is None:
        return None
    return Plan(git("show", f"{commit}:{folder}/sqitch.plan", root=root).stdout)


def release_commit(tag, root=REPO_ROOT):
    """The commit of release `tag`: git tag `tag`, else the first commit whose plan carries `@tag`."""
    tagged = git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}", root=root, check=False)
    if tagged.returncode == 0:
        commit = tagged.stdout.strip()
        plan = plan_at(commit, root)
        if plan is None or tag not in plan.tag_lines:
            raise ReleaseError(f"git tag {tag} ({commit[:12]}) has no line @{tag} in its {PLAN}: "
                               f"the git tag and the sqitch tag disagree")
        return commit
    # -G: commits whose diff adds or removes a line matching; the oldest one that holds the line added it.
    # The line must be the one the plan carries now: a tag line of that name withdrawn before its release
    # (and written again, with another date, where the release really was made) is not the release.
    current = read_plan(root)
    wanted = current.lines[current.tag_lines[tag]].strip() if tag in current.tag_lines else None
    plans = [PLAN] + [f"{folder}/sqitch.plan" for folder in EARLIER_MIGRATIONS]
    found = git("log", "--reverse", "--format=%H", "-G", f"^@{tag} ", "--", *plans, root=root, check=False)
    for commit in found.stdout.split():
        plan = plan_at(commit, root)
        if plan is not None and tag in plan.tag_lines and (
                wanted is None or plan.lines[plan.tag_lines[tag]].strip() == wanted):
            return commit
    shallow = git("rev-parse", "--is-shallow-repository", root=root, check=False).stdout.strip() == "true"
    hint = (" This clone is shallow: fetch the history (git fetch --unshallow --tags)." if shallow else
            " Fetch the tags (git fetch --tags) or the history that added the tag line.")
    raise ReleaseError(f"cannot find the commit of release {tag}: no git tag {tag} and no commit whose "
                       f"{PLAN} carries the line @{tag}.{hint}")


def read_at(commit, path, root=REPO_ROOT):
    proc = git("show", f"{commit}:{path}", root=root, check=False)
    return proc.stdout if proc.returncode == 0 else None


def read_now(path, root=REPO_ROOT):
    try:
        with open(os.path.join(root, path), encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def tagged_differences(root=REPO_ROOT):
    """Every way the tree departs from its tags: [(tag, what)]; empty when every tagged change is intact."""
    plan = read_plan(root)
    problems = []
    for tag in plan.order:
        commit = release_commit(tag, root)
        then = plan_at(commit, root)
        migrations_then = migrations_at(commit, root)
        upto_now = plan.lines[:plan.tag_lines[tag] + 1]
        upto_then = then.lines[:then.tag_lines[tag] + 1]
        if upto_now != upto_then:
            problems.append((tag, f"{PLAN} up to @{tag} differs from commit {commit[:12]}: a tagged change "
                                  f"was added, removed, reordered or edited in the plan"))
        then_changes = then.tagged[tag]
        for now_change, then_change in zip(plan.tagged[tag], then_changes):
            for kind in SCRIPT_KINDS:
                path_now = script_path(now_change, kind, lambda p: read_now(p, root) is not None)
                path_then = script_path(then_change, kind, lambda p: read_at(commit, p, root) is not None,
                                        migrations_then)
                text_then = read_at(commit, path_then, root)
                text_now = read_now(path_now, root)
                if text_now != text_then:
                    state = "is missing" if text_now is None else "differs"
                    problems.append((tag, f"{path_now} {state} from {path_then} at @{tag} (commit {commit[:12]}): "
                                          f"a change a tag contains is never edited: restore it, and make the edit "
                                          f"a new change or a `sqitch rework {now_change.name}`"))
    return problems


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    root = os.environ.get("QUEEN_REPO_ROOT", REPO_ROOT)
    try:
        if command == "previous" and len(argv) == 2:
            print(os.environ.get("QUEEN_UPGRADE_FROM") or previous_release(read_plan(root)))
        elif command == "commit" and len(argv) == 3:
            print(release_commit(argv[2], root))
        elif command == "check-tagged" and len(argv) == 2:
            problems = tagged_differences(root)
            plan = read_plan(root)
            for tag, what in problems:
                print(f"tagged-change check: @{tag}: {what}", file=sys.stderr)
            if problems:
                return 1
            counted = sum(len(plan.tagged[t]) for t in plan.order)
            print(f"tagged-change check: {len(plan.order)} tag(s), {counted} tagged change instance(s), "
                  f"deploy/revert/verify scripts as tagged: ok")
        else:
            print("usage:\n" + "\n".join(__doc__.strip().splitlines()[2:5]), file=sys.stderr)
            return 2
    except ReleaseError as exc:
        print(f"{os.path.basename(argv[0])}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
