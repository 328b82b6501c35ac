-- pgTAP: queen.apply_retention
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(33);

-- the sweep covers every queue: switch retention off for queues other tests left behind
UPDATE queen.queues SET retention_enabled = false;
DELETE FROM queen.dedup_tombstones;

\ir support/sweep_helpers.psql
CREATE FUNCTION pg_temp.left_in(p_queue text) RETURNS text[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(m.transaction_id ORDER BY m.seq), '{}') FROM queen.stored_messages m
    JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = p_queue
$$;
-- consume n messages of p_queue for p_group (pop + ack)
CREATE FUNCTION pg_temp.consume(p_queue text, p_group text, p_n int) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM queen.ack_messages(
    (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id))
       FROM queen.pop_messages(p_queue, NULL, p_group, p_n, 1, false, NULL, NULL, NULL, NULL, '')), p_group, '')
$$;

-- the segments of queue p_queue: base_seq, whether emptied
CREATE FUNCTION pg_temp.segments_of(p_queue text) RETURNS text[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(s.base_seq || CASE WHEN s.payloads IS NULL THEN ' emptied' ELSE '' END ORDER BY s.base_seq), '{}')
    FROM queen.segments s JOIN queen.partitions p ON p.id = s.partition_id JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = p_queue
$$;

-- 1. pending retention: anything older than retentionSeconds, consumed or not, whole segments (a push each here)
SELECT queen.configure_queue('t_ret', NULL, NULL, '{"retentionEnabled": true, "retentionSeconds": 3600}', '');
SELECT queen.configure_queue('t_ret_off', NULL, NULL, '{"retentionEnabled": false, "retentionSeconds": 60}', '');
SELECT pg_temp.push('t_ret_off', 1, 'kept');
SELECT pg_temp.push('t_ret', 2, 'old');
SELECT pg_temp.push('t_ret', 1, 'young');
-- at young1's creation + 3600 s, the messages pushed before it are older than retentionSeconds
CREATE TEMP TABLE t1 AS SELECT pg_temp.after('t_ret', 'young1', 3600) AS at;
-- traces of a removed message and of a kept one
CREATE FUNCTION pg_temp.traces_of(p_queue text) RETURNS text[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(t.transaction_id ORDER BY t.transaction_id), '{}') FROM queen.message_traces t
    JOIN queen.partitions p ON p.id = t.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = p_queue
$$;
SELECT queen.record_trace(m.partition_id, m.transaction_id, '{"step": 1}', ARRAY['flow'], 'info', '__QUEUE_MODE__', NULL, '')
  FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
 WHERE q.name = 't_ret' AND m.transaction_id IN ('old1', 'young1');
SELECT is(queen.apply_retention(100, '1 hour', pg_temp.after('t_ret', 'old1', 3600)), 0, 'nothing is older than retentionSeconds yet');
SELECT is(queen.apply_retention(100, '1 hour', (SELECT at FROM t1)), 2, 'two old messages removed');
SELECT is(pg_temp.left_in('t_ret'), ARRAY['young1'], 'the young message stays');
SELECT is(pg_temp.left_in('t_ret_off'), ARRAY['kept1'], 'retentionEnabled=false keeps everything');
SELECT is(pg_temp.traces_of('t_ret'), ARRAY['young1'], 'the traces of a removed message go with it');
SELECT is(pg_temp.segments_of('t_ret'), ARRAY['3'], 'pushed before the dedup window (1 hour before the sweep): their segment is deleted');
SELECT is((SELECT removed_seq FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_ret'), 2::bigint,
          'the partition records what retention removed');
SELECT is(queen.apply_retention(100, '1 hour', (SELECT at FROM t1)), 0, 'nothing left');
-- Inside the dedup window a removed segment is emptied: no longer delivered, its transaction ids still dedup.
CREATE TEMP TABLE t1b AS SELECT pg_temp.after('t_ret', 'young1', 7201) AS at;
SELECT is(queen.apply_retention(100, '2 hours', pg_temp.after('t_ret', 'young1', 3601)), 1, 'young1 removed, inside a 2-hour window');
SELECT is(pg_temp.left_in('t_ret'), '{}'::text[], 'no message left to deliver');
SELECT is(pg_temp.segments_of('t_ret'), ARRAY['3 emptied'], 'its segment is emptied, not deleted');
SELECT is(pg_temp.traces_of('t_ret'), '{}'::text[], 'an emptied segment''s messages lose their traces');
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_ret", "transactionId": "young1"}]', NULL, '')), 'duplicate',
          'a removed key is still a duplicate inside the window');
SELECT is(queen.apply_retention(100, '2 hours', (SELECT at FROM t1b)), 1, 'once the window is over...');
SELECT is(pg_temp.segments_of('t_ret'), '{}'::text[], '... the emptied segment is deleted (the duplicate push stored nothing)');

-- 2. completed retention: only whole segments every cursor of the partition has passed
SELECT queen.configure_queue('t_retc', NULL, NULL, '{"retentionEnabled": true, "completedRetentionSeconds": 60}', '');
SELECT pg_temp.push('t_retc', 1, 'c'), pg_temp.push('t_retc', 1, 'd'), pg_temp.push('t_retc', 2, 'e');
-- every sweep of this part runs when they are older than completedRetentionSeconds (t_ret's are not)
CREATE TEMP TABLE t2 AS SELECT pg_temp.after('t_retc', 'e1', 61) AS at;
SELECT is(queen.apply_retention(100, p_now => (SELECT at FROM t2)), 0, 'no cursor on the partition: nothing is completed');
SELECT is(pg_temp.consume('t_retc', 'ga', 3), 3::bigint, 'group ga consumed c1, d1, e1');
SELECT is(pg_temp.consume('t_retc', 'gb', 1), 1::bigint, 'group gb consumed c1');
SELECT is(queen.apply_retention(100, p_now => (SELECT at FROM t2)), 1, 'only c1 is passed by every cursor');
SELECT is(pg_temp.left_in('t_retc'), ARRAY['d1', 'e1', 'e2'], 'd1, e1, e2 stay');
SELECT is(pg_temp.consume('t_retc', 'gb', 2), 2::bigint, 'group gb consumed d1, e1');
SELECT is(queen.apply_retention(100, p_now => (SELECT at FROM t2)), 1,
          'd1 goes; e1 stays with e2 in their segment, which no cursor has passed whole');
SELECT is(pg_temp.left_in('t_retc'), ARRAY['e1', 'e2'], 'a segment goes whole or not at all');
SELECT is(pg_temp.consume('t_retc', 'ga', 1) + pg_temp.consume('t_retc', 'gb', 1), 2::bigint, 'both groups consumed e2');
SELECT is(queen.apply_retention(1, p_now => (SELECT at FROM t2)), 2, 'the batch is a bound, yet a segment is removed whole');
SELECT is(pg_temp.left_in('t_retc'), '{}'::text[], 'nothing left');

-- 3. legacy tombstones (of a database upgraded from 1.1.0) past their window, and dead letters past
--    retentionSeconds. The dead letter is given its own past instant here (a sweep at a later p_now would age
--    the dead letter's message along with it).
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
SELECT p.id, x.t, gen_random_uuid(), x.at FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id,
       (VALUES ('gone', now() - interval '1 second'), ('live', now() + interval '1 hour')) x(t, at)
 WHERE q.name = 't_ret';
SELECT pg_temp.push('t_ret', 1, 'dead');
SELECT queen_internal.dead_letter(m.partition_id, m.seq, 'g', 'boom', 0) FROM queen.stored_messages m
  JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_ret' AND m.transaction_id = 'dead1';
UPDATE queen.dlq SET failed_at = now() - interval '2 hours' WHERE transaction_id = 'dead1';
SELECT is((SELECT array_agg(status) FROM queen.push_messages('[{"queue": "t_ret", "transactionId": "live"}, {"queue": "t_ret", "transactionId": "gone"}]', NULL, '')),
          ARRAY['duplicate', 'queued'], 'a live legacy tombstone still deduplicates, an expired one not');
SELECT is(queen.apply_retention(100), 2, 'one expired tombstone and one old dead letter removed');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.dedup_tombstones), ARRAY['live'], 'the live tombstone stays');
SELECT is((SELECT count(*) FROM queen.dlq WHERE transaction_id = 'dead1'), 0::bigint, 'the dead letter is gone');

SELECT throws_ok($$SELECT queen.apply_retention(0)$$, '22023', NULL, 'batch < 1 is 22023');

-- 4. With no queue keeping messages for a limited time, a sweep reads no partition: its cost does not grow with
--    the partitions a database holds. (Scan counters of this transaction, seq and index alike.)
UPDATE queen.queues SET retention_enabled = false;
CREATE FUNCTION pg_temp.partition_scans() RETURNS bigint LANGUAGE sql AS $$
  SELECT sum(pg_stat_get_xact_numscans(c.oid))::bigint FROM pg_class c
   WHERE c.oid = 'queen.partitions'::regclass
      OR c.oid IN (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = 'queen.partitions'::regclass)
$$;
CREATE TEMP TABLE scans_before AS SELECT pg_temp.partition_scans() AS n;
SELECT is(queen.apply_retention(100), 0, 'no retention queue: nothing to delete');
SELECT is(pg_temp.partition_scans(), (SELECT n FROM scans_before), 'and no scan of queen.partitions or its indexes');

SELECT * FROM finish();
ROLLBACK;
