"""Every curl and psql example of the user documentation runs as written (markdown_examples.py, docs/testing.md).

One test per example block, id `file:line` of its opening fence; a file's blocks run in document order in one
shell session against a broker and database of the file's own (conftest.py).
"""
import pytest

from harness import env as harness_env

import markdown_examples

DOCS = markdown_examples.parse_files(harness_env.REPO_ROOT)
EXAMPLES = [(doc, block) for doc in DOCS for block in doc.examples]

# The examples each file held when these were written. Finding fewer means the extractor lost some (or the
# examples were removed: then lower the number here in the same change).
MIN_EXAMPLES = {
    "README.md": 2,
    "docs/auth.md": 1,
    "docs/encryption.md": 1,
    "docs/lifecycle.md": 14,
    "docs/operations-ha.md": 1,
    "docs/operations-logs.md": 1,
    "docs/procedures.md": 1,
    "docs/timers-kv-jobs.md": 5,
}


@pytest.mark.parametrize("doc, block", EXAMPLES, ids=[block.id for _, block in EXAMPLES])
def test_example_runs(doc, block, example_sessions):
    if block.skip_reason:
        pytest.skip(f"{block.id}: {block.skip_reason}")
    example_sessions.session_for(doc).check(block)


def test_markers_and_fences_are_well_formed():
    """Every skip marker has its reason and sits on an example; no unlabelled block runs curl or psql."""
    problems = [problem for doc in DOCS for problem in doc.problems]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path, minimum", sorted(MIN_EXAMPLES.items()))
def test_examples_are_found(path, minimum):
    found = [block.id for doc in DOCS if doc.path == path for block in doc.examples]
    assert len(found) >= minimum, f"{path}: {len(found)} examples found, at least {minimum} expected: {found}"
