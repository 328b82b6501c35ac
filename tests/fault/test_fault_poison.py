"""Fault: a poison record at the head of the spool. Its replay fails with a permanent SQL error
(a queue name longer than 255 characters and a traceId that is not a UUID: the database rejects
both as bad data, SQLSTATE 22023), so it would block every newer file behind it forever.

As docs/operations-spool.md ("Replay and the failed/ directory") describes it: the drain counts
consecutive permanent failures of the head file, logs an ERROR with attempt/max_attempts each
time, and after 5 moves it to <FILE_BUFFER_DIR>/failed/; the files behind it then drain. The
spool files are written by hand in the on-disk format (src/spool/record_codec.h).
"""
import re

from harness import Ledger, poll_until, schema, unique_name

from fault_support import (buffer_status, epoch_ms_ago, maintenance_status, quarantined_files, record_spooled,
                           spool_event_body, spool_file_name, spool_gauges, wait_spool_empty,
                           write_spool_file)

MAX_PERMANENT_ATTEMPTS = 5
POISON_QUEUE = "poison-" + "q" * 300
POISON_TRACE_ID = "not-a-uuid"
GOOD_EVENTS = 40
QUARANTINE_TIMEOUT_S = 30

ATTEMPT_RE = re.compile(r"(?<!max_)attempts?\W{0,3}(\d+)")
MAX_ATTEMPTS_RE = re.compile(r"max_attempts\W{0,3}(\d+)")
ERROR_LEVEL_RE = re.compile(r"\berror\b", re.IGNORECASE)


def permanent_failure_lines(log_text, file_name):
    """(attempt, max_attempts, line) of every log line about `file_name` that carries both numbers."""
    found = []
    for line in log_text.splitlines():
        if file_name not in line:
            continue
        attempt, maximum = ATTEMPT_RE.search(line), MAX_ATTEMPTS_RE.search(line)
        if attempt and maximum:
            found.append((int(attempt.group(1)), int(maximum.group(1)), line))
    return found


def test_poison_file_is_quarantined_after_five_attempts_and_newer_files_drain(pg_cluster, broker_factory):
    cluster = pg_cluster()
    broker = broker_factory(start=False, pg=cluster.target, name="poison", env={"FILE_BUFFER_FLUSH_MS": 50})
    queue = unique_name("behind-poison")

    # Oldest file: the poison record. Next file: good events for two partitions.
    stamp = epoch_ms_ago(60)
    poison_name, good_name = spool_file_name(stamp, 1), spool_file_name(stamp, 2)
    _, poison_bytes = write_spool_file(broker.spool_dir, poison_name, [
        spool_event_body(POISON_QUEUE, "Default", "poison-0", {"poison": True}, trace_id=POISON_TRACE_ID)])
    good_items = [{"queue": queue, "partition": f"p{n % 2}", "transactionId": f"good-{n}", "payload": {"n": n}}
                  for n in range(GOOD_EVENTS)]
    write_spool_file(broker.spool_dir, good_name, [
        spool_event_body(i["queue"], i["partition"], i["transactionId"], i["payload"]) for i in good_items])
    ledger = Ledger()
    record_spooled(ledger, "good-file", good_items)

    log_offset = broker.log_size()
    broker.start()
    with broker.client() as client:
        poll_until(lambda: poison_name in quarantined_files(broker.spool_dir), timeout=QUARANTINE_TIMEOUT_S,
                   what=f"{poison_name} moved to failed/")
        assert quarantined_files(broker.spool_dir) == {poison_name: poison_bytes}, \
            "the quarantined file must be the poison file, unchanged"

        # The file behind it drains: every good event stored once, in file order per partition.
        ledger.assert_consistent(cluster.target, timeout=QUARANTINE_TIMEOUT_S, order_statuses=("buffered",))
        assert not schema.queue_exists(cluster.target, POISON_QUEUE)
        wait_spool_empty(client, broker.spool_dir, timeout=QUARANTINE_TIMEOUT_S)

        attempts = permanent_failure_lines(broker.log_text(since=log_offset), poison_name)
        assert [a for a, _, _ in attempts] == list(range(1, MAX_PERMANENT_ATTEMPTS + 1)), \
            "expected one ERROR per attempt 1..5:\n" + "\n".join(line for _, _, line in attempts)
        assert all(m == MAX_PERMANENT_ATTEMPTS for _, m, _ in attempts), attempts
        assert all(ERROR_LEVEL_RE.search(line) for _, _, line in attempts), attempts

        # Quarantined events are visible and stay so: they were accepted and will never be stored.
        assert spool_gauges(client)["queen_file_buffer_failed"] > 0
        assert buffer_status(client)["failed"] > 0
        stats = maintenance_status(client)["bufferStats"]
        assert stats["failedCount"] > 0, stats
        assert stats["failedFiles"]["count"] == 1, stats
        assert stats["failedFiles"]["totalBytes"] == poison_bytes, stats
