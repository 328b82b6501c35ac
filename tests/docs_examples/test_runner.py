"""The example runner itself, on synthetic Markdown: a broken example fails and is named, a block sees what an
earlier one set, markers are checked. Without these the docs suite could pass by finding or running nothing."""
import textwrap

import pytest

import markdown_examples

FENCE = "```"


def doc(text, path="guide.md"):
    return markdown_examples.parse(path, textwrap.dedent(text).replace("'''", FENCE))


def test_blocks_are_found_with_their_lines_and_languages():
    parsed = doc("""\
        # Guide

        '''sh
        curl -s localhost:6632/health
        '''

        '''sh
        make run
        '''

        1. In a list:

           '''sql
           SELECT 1;
           '''

        '''text
        curl: (22) The requested URL returned error: 404
        '''

        '''sh
        POP=$(curl -s "localhost:6632/api/v1/pop/queue/q?batch=1"); echo "$POP"
        '''
        """)
    assert [(b.line, b.language) for b in parsed.blocks] == [(3, "sh"), (7, "sh"), (13, "sql"), (17, "text"),
                                                             (21, "sh")]
    assert [b.id for b in parsed.examples] == ["guide.md:3", "guide.md:13", "guide.md:21"]
    assert parsed.examples[1].text == "SELECT 1;\n"
    assert parsed.problems == []


def test_skip_markers_need_a_reason_and_an_example():
    parsed = doc("""\
        <!-- example: skip (needs a managed cloud) -->
        '''sh
        curl -s https://cloud.example/api
        '''

        <!-- example: skip -->
        '''sh
        curl -s localhost:6632/health
        '''

        <!-- example: skip () -->
        '''sql
        SELECT 1;
        '''

        <!-- example: skip (output) -->
        '''text
        {"status": "healthy"}
        '''

        <!-- example: run twice -->
        '''sql
        SELECT 2;
        '''

        <!-- example: skip (dangling) -->
        Some prose.

        '''
        curl -s localhost:6632/health
        '''
        """)
    assert [b.skip_reason for b in parsed.examples] == ["needs a managed cloud", None, None, None]
    assert parsed.problems == [
        "guide.md:6: a skip marker needs its reason: `<!-- example: skip (why this block cannot run) -->`",
        "guide.md:11: a skip marker needs its reason: `<!-- example: skip (why this block cannot run) -->`",
        "guide.md:16: skip marker on a block that is not an example (```text): remove it",
        "guide.md:21: unknown example marker `run twice` (the one marker is `<!-- example: skip (reason) -->`)",
        "guide.md:26: example marker not followed by a fenced block",
        "guide.md:29: an unlabelled block runs curl or psql: fence it as ```sh (an example) or ```text (output)",
    ]


def test_documented_addresses_are_replaced_where_they_end():
    addresses = {"localhost:6632": "127.0.0.1:40001", "-d queen": "-d queen_docs_1"}
    text = "Q=http://localhost:6632\ncurl localhost:66320/x\npsql -d queen -c 'select 1'\npsql -d queen_other\n"
    assert markdown_examples.substitute(text, addresses) == (
        "Q=http://127.0.0.1:40001\ncurl localhost:66320/x\npsql -d queen_docs_1 -c 'select 1'\npsql -d queen_other\n")


def run_all(example_sessions, parsed):
    session = example_sessions.session_for(parsed)
    return [session.run_through(block) for block in parsed.examples if not block.skip_reason]


def test_a_failing_curl_fails_its_example_and_is_named(example_sessions):
    parsed = doc("""\
        '''sh
        curl -s localhost:6632/health; echo
        '''

        '''sh
        curl -s -X POST localhost:6632/api/v1/push -H 'Content-Type: application/json' -d '{"items": "none"}'
        '''

        '''sh
        curl -s localhost:6632/health; echo
        '''
        """)
    session = example_sessions.session_for(parsed)
    # What each example's test does: the failure is an AssertionError naming the block, with curl's answer.
    with pytest.raises(AssertionError, match=r"example guide\.md:5 failed \(exit 22\)"):
        session.check(parsed.examples[1])
    healthy, broken, after = run_all(example_sessions, parsed)
    assert healthy.ok, healthy.report()
    assert '"database":"connected"' in healthy.stdout.replace(" ", "")
    assert not broken.ok
    report = broken.report()
    assert report.startswith("example guide.md:5 failed (exit 22)"), report
    assert "returned error: 400" in broken.stderr and '"error"' in broken.stdout, report
    # The address the test substituted is what ran, and what the report shows.
    assert "127.0.0.1:" in report and "localhost:6632" not in report
    # A later block still runs, and says which earlier block failed before it.
    assert after.ok and after.earlier_failures == ["guide.md:5"]


def test_a_failing_sql_block_fails_its_example(example_sessions):
    parsed = doc("""\
        '''sql
        SELECT count(*) FROM queen.queues;
        SELECT queen.no_such_function();
        SELECT 'not reached';
        '''
        """)
    (result,) = run_all(example_sessions, parsed)
    assert not result.ok
    assert "queen.no_such_function() does not exist" in result.stderr, result.report()
    assert "not reached" not in result.stdout


def test_a_failing_command_inside_a_pipeline_fails_the_block(example_sessions):
    parsed = doc("""\
        '''sh
        curl -s localhost:6632/health | jq -r .no_such_field | grep -q something
        echo "not reached"
        '''
        """)
    (result,) = run_all(example_sessions, parsed)
    assert result.returncode == 1 and "not reached" not in result.stdout, result.report()


def test_blocks_share_one_shell_session_in_document_order(example_sessions):
    parsed = doc("""\
        '''sh
        STATUS=$(curl -s localhost:6632/health | jq -r .database)
        export ANSWERED_AT=noon
        greet() { echo "hello $1"; }
        '''

        Prose between the steps.

        '''sh
        test "$STATUS" = connected
        greet "$ANSWERED_AT"
        curl -s -o /dev/null -w '%{http_code}\\n' localhost:6632/health
        '''

        '''sql
        SELECT current_user AS who, current_database() LIKE 'queen%' AS ours;
        '''
        """)
    session = example_sessions.session_for(parsed)
    # Asked for the last block first (as `pytest -k` would), the runner runs the earlier ones before it.
    last = session.run_through(parsed.examples[2])
    first, second = (session.results[b.id] for b in parsed.examples[:2])
    assert first.ok and second.ok and last.ok, "\n".join(r.report() for r in (first, second, last))
    assert second.stdout.splitlines() == ["hello noon", "200"]
    assert "postgres" in last.stdout and " t" in last.stdout, last.stdout


def test_an_unset_variable_fails_the_block(example_sessions):
    parsed = doc("""\
        '''sh
        curl -s "localhost:6632/api/v1/pop/queue/q?leaseId=$LEASE_FROM_NOWHERE"
        '''
        """)
    (result,) = run_all(example_sessions, parsed)
    assert not result.ok and "LEASE_FROM_NOWHERE: unbound variable" in result.stderr, result.report()
