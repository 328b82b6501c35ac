"""Fault: one poison event in the middle of a spool file, with the database healthy.

As docs/operations-spool.md ("Replay and the failed/ directory") describes it: a batch that fails is replayed one
event at a time; a lone event that keeps failing while the database answers everything else is quarantined on its
own (failed/<file>.event-<n>.buf, its record byte for byte) after 5 failures, and the events after it in the same
file, and the files behind it, are stored. Two poisons:

  * refused (permanent): a payload holding a \\u0000 escape, which jsonb cannot store (SQLSTATE 22P05). A push
    cannot carry it (the broker refuses it with 400), so the spool file is written by hand, as a spool damaged on
    disk, or written by an older broker, would look;
  * suspect (transient while the database answers): a trigger on queen.segments fails the insert of a segment
    holding one transactionId with SQLSTATE 08006, a connection failure as PostgreSQL reports it when it drops a call it
    cannot take (the 1 GB "invalid message length" case), while every other call and the broker's ping succeed.
    An outage would never quarantine; a call that fails alone with the database up must not block the drain
    forever either.
"""
import json
import re

from harness import Ledger, poll_until, schema, unique_name

from fault_support import (buffer_status, encode_record, epoch_ms_ago, quarantined_files, record_spooled,
                           spool_event_body, spool_file_name, spool_gauges, wait_spool_empty, write_spool_file)

ATTEMPTS = 5
QUARANTINE_TIMEOUT_S = 30
EVENTS_BEFORE, EVENTS_AFTER = 7, 12
ATTEMPT_RE = re.compile(r"attempt=(\d+), max_attempts=(\d+)")


def spool_with_poison(spool_dir, queue, poison_payload, poison_txid):
    """One finalized file: good events, the poison, more good events (two partitions); a second file behind it."""
    stamp = epoch_ms_ago(60)
    items = [{"queue": queue, "partition": f"p{n % 2}", "transactionId": f"good-{n}", "payload": {"n": n}}
             for n in range(EVENTS_BEFORE + EVENTS_AFTER)]
    bodies = [spool_event_body(i["queue"], i["partition"], i["transactionId"], i["payload"]) for i in items]
    poison_body = spool_event_body(queue, "p0", poison_txid, poison_payload)
    bodies.insert(EVENTS_BEFORE, poison_body)
    name = spool_file_name(stamp, 1)
    write_spool_file(spool_dir, name, bodies)
    behind = [{"queue": queue, "partition": "p1", "transactionId": f"behind-{n}", "payload": {"n": n}}
              for n in range(3)]
    write_spool_file(spool_dir, spool_file_name(stamp, 2),
                     [spool_event_body(i["queue"], i["partition"], i["transactionId"], i["payload"]) for i in behind])
    return name, items + behind, encode_record(poison_body)


def assert_poison_quarantined_and_the_rest_stored(broker, database, queue, name, items, poison_record, poison_txid,
                                                  log_offset, how):
    ledger = Ledger()
    record_spooled(ledger, "spool", items)
    expected = f"{name[:-len('.buf')]}.event-{EVENTS_BEFORE}.buf"
    with broker.client() as client:
        poll_until(lambda: expected in quarantined_files(broker.spool_dir), timeout=QUARANTINE_TIMEOUT_S,
                   what=f"the poison event quarantined as {expected}")
        ledger.assert_consistent(database, timeout=QUARANTINE_TIMEOUT_S, order_statuses=("buffered",))
        wait_spool_empty(client, broker.spool_dir, timeout=QUARANTINE_TIMEOUT_S)
        assert quarantined_files(broker.spool_dir) == {expected: len(poison_record)}
        with open(f"{broker.spool_dir}/failed/{expected}", "rb") as fh:
            assert fh.read() == poison_record, "the quarantined file is the poison's record, byte for byte"
        stored = {row["transaction_id"] for row in schema.stored_messages(database, [queue])}
        assert poison_txid not in stored
        assert len(stored) == len(items)
        assert buffer_status(client)["failed"] == 1
        assert spool_gauges(client)["queen_file_buffer_failed"] == 1
        assert buffer_status(client)["dbHealthy"] is True

    lines = [line for line in broker.log_text(since=log_offset).splitlines()
             if name in line and how in line and ATTEMPT_RE.search(line)]
    attempts = [tuple(int(g) for g in ATTEMPT_RE.search(line).groups()) for line in lines]
    assert attempts == [(n, ATTEMPTS) for n in range(1, ATTEMPTS + 1)], "\n".join(lines)


def test_a_refused_event_is_quarantined_alone_and_the_events_after_it_are_stored(pg_cluster, broker_factory):
    cluster = pg_cluster()
    broker = broker_factory(start=False, pg=cluster.target, name="poison-event", env={"FILE_BUFFER_FLUSH_MS": 50})
    queue = unique_name("poison-event")
    poison_txid = "refused-nul"
    name, items, poison_record = spool_with_poison(broker.spool_dir, queue, {"text": "a\u0000b"}, poison_txid)
    assert "\\u0000" in json.dumps({"text": "a\u0000b"})

    log_offset = broker.log_size()
    broker.start()
    assert_poison_quarantined_and_the_rest_stored(broker, cluster.target, queue, name, items, poison_record,
                                                  poison_txid, log_offset, "failed permanently")


def test_an_event_failing_alone_while_the_database_answers_is_quarantined_and_never_blocks(pg_cluster,
                                                                                          broker_factory):
    cluster = pg_cluster()
    database = cluster.target
    poison_txid = "dropped-call"
    database.execute(f"""
        create function public.drop_one_call() returns trigger language plpgsql as $$
        begin
          if '{poison_txid}' = ANY (new.transaction_ids) then
            raise exception 'connection dropped for this call' using errcode = '08006';
          end if;
          return new;
        end $$;
        create trigger drop_one_call before insert on queen.segments
          for each row execute function public.drop_one_call();""")
    broker = broker_factory(start=False, pg=database, name="suspect-event", env={"FILE_BUFFER_FLUSH_MS": 50})
    queue = unique_name("suspect-event")
    name, items, poison_record = spool_with_poison(broker.spool_dir, queue, {"n": "poison"}, poison_txid)

    log_offset = broker.log_size()
    broker.start()
    assert_poison_quarantined_and_the_rest_stored(broker, database, queue, name, items, poison_record, poison_txid,
                                                  log_offset, "failed while the database answers other calls")
