"""Where the documentation's examples run: one throwaway PostgreSQL cluster (schema deployed) and one broker
per Markdown file, and the shell session of that file (markdown_examples.py).

A cluster rather than a database of the project cluster: examples may create roles (docs/procedures.md), and
roles belong to the whole cluster.
"""
import os
import re
import secrets

import pytest

from harness import Broker, PgCluster
from harness import env as harness_env

import markdown_examples

# Broker settings a file's examples assume. They are exported to that file's shell too, as they are in the shell
# that started the broker with `make run` (docs/auth.md mints its token with $JWT_SECRET).
FILE_BROKER_SETTINGS = {
    "docs/auth.md": lambda: {"JWT_ENABLED": "true", "JWT_SECRET": secrets.token_hex(32)},
}

# The source tree's folders an example may name by a path relative to the root (`psql -f migrations/deploy/roles.sql`),
# linked into each file's working directory: documented paths work, and what an example writes stays in the run's
# directory.
SOURCE_FOLDERS = ("migrations", "scripts", "sql", "deploy", "docker")


def link_source_folders(workdir):
    for name in SOURCE_FOLDERS:
        os.symlink(os.path.join(harness_env.REPO_ROOT, name), os.path.join(workdir, name))


class ExampleSessions:
    """The ExampleSession of the file being run, made on its first block; moving on to another file stops
    the previous file's broker and cluster (the files run one after another)."""

    def __init__(self):
        self.current = None
        self._broker = None
        self._cluster = None

    def session_for(self, doc):
        if self.current is not None and self.current.doc is doc:
            return self.current
        self.close()
        slug = re.sub(r"[^A-Za-z0-9]+", "-", doc.path).strip("-")
        settings = FILE_BROKER_SETTINGS.get(doc.path, dict)()
        self._cluster = PgCluster().create()
        database = self._cluster.target
        self._broker = Broker(pg=database, env=settings, name=f"docs-{slug}").start()
        workdir = harness_env.new_tmp_dir(f"examples-{slug}")
        link_source_folders(workdir)
        self.current = markdown_examples.ExampleSession(
            doc, workdir, markdown_examples.documented_addresses(self._broker.port, database),
            markdown_examples.shell_environment(database, extra=settings))
        return self.current

    def close(self):
        if self._broker is not None:
            self._broker.stop()
        if self._cluster is not None:
            self._cluster.destroy()
        self.current = self._broker = self._cluster = None


@pytest.fixture(scope="session")
def example_sessions():
    sessions = ExampleSessions()
    yield sessions
    sessions.close()


# Outcome ("passed", "failed", "skipped") of each example test of this run, by block id.
_example_outcomes = {}


def pytest_runtest_logreport(report):
    if "test_example_runs[" not in report.nodeid:
        return
    block_id = report.nodeid.split("test_example_runs[", 1)[1][:-1]
    if report.when == "call" or report.outcome != "passed":
        _example_outcomes.setdefault(block_id, report.outcome)


def pytest_terminal_summary(terminalreporter):
    """How many examples the documentation holds, how many ran and how, and every skipped one with its reason."""
    if not _example_outcomes:
        return
    docs = markdown_examples.parse_files(harness_env.REPO_ROOT)
    examples = [b for d in docs for b in d.examples]
    skipped = [b for b in examples if b.skip_reason]
    outcomes = list(_example_outcomes.values())
    ran = outcomes.count("passed") + outcomes.count("failed")
    terminalreporter.write_sep("-", "documentation examples")
    terminalreporter.write_line(
        f"{len(examples)} examples in {len([d for d in docs if d.examples])} files, {len(skipped)} of them "
        f"skipped by marker; this run: {ran} ran ({outcomes.count('passed')} passed, "
        f"{outcomes.count('failed')} failed), {outcomes.count('skipped')} skipped")
    for block in skipped:
        terminalreporter.write_line(f"  skipped {block.id}: {block.skip_reason}")
