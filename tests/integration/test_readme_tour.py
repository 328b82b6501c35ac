"""The README's curl tour works as written: run its shell block against a real broker."""
import json
import pathlib
import re
import subprocess
import uuid

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def tour_script():
    text = README.read_text()
    section = text[text.index("## A tour with curl"):]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "README has no ```sh block under '## A tour with curl'"
    return match.group(1)


def test_readme_tour_runs_as_written(broker):
    script = tour_script()
    assert "Q=http://localhost:6632" in script
    queue = "tour-" + uuid.uuid4().hex[:8]
    # Only the address and the queue name change: a fresh queue keeps reruns deterministic.
    script = script.replace("Q=http://localhost:6632", f"Q={broker.url}").replace("invoices", queue)
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 6, run.stdout

    configured = json.loads(lines[0])
    assert configured["configured"] is True and configured["options"]["retryLimit"] == 2
    pushed = json.loads(lines[1])
    assert [item["status"] for item in pushed] == ["queued", "queued"]
    again = json.loads(lines[2])
    assert again[0]["status"] == "duplicate" and again[0]["message_id"] == pushed[0]["message_id"]
    popped = json.loads(lines[3])
    assert [m["transactionId"] for m in popped["messages"]] == ["inv-1", "inv-2"]
    acked = json.loads(lines[4])
    assert [a["success"] for a in acked] == [True, True]
    assert lines[5] == "204"
