-- pgTAP: pop's work list under real concurrency (dblink sessions 'a' and 'b', which
-- commit on a queue of their own, deleted at the end; this session only observes).
-- The races: an ack that consumes a partition to the last message it can see while a
-- push to that partition has not committed yet must not leave the partition unpending,
-- and a group registering while a push creates a partition must get a row on it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(17);

\set queue_prefix t_wlc_
\ir support/dblink_sessions.psql

-- SQL text: push one message <txid> to partition <partition> of the test queue
CREATE FUNCTION pg_temp.push_sql(p_partition text, p_txid text) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT status FROM queen.push_messages(%L, NULL, '''')',
                jsonb_build_array(jsonb_build_object('queue', (SELECT q FROM t), 'partition', p_partition, 'transactionId', p_txid)))
$$;
-- SQL text: pop (group g, wildcard) and ack completed what it got, in one statement; returns the acked txids
CREATE FUNCTION pg_temp.pop_ack_sql(p_group text) RETURNS text LANGUAGE sql AS $$
  SELECT format($f$SELECT coalesce(string_agg(a.transaction_id, ',' ORDER BY a.transaction_id), '')
                     FROM queen.ack_messages((SELECT jsonb_agg(jsonb_build_object('transactionId', m.transaction_id,
                                                 'partitionId', m.partition_id, 'leaseId', m.lease_id))
                                               FROM queen.pop_messages(%L, NULL, %L, 10, 1, false, NULL, NULL, NULL, NULL, '') m), %L, '') a$f$,
                (SELECT q FROM t), p_group, p_group)
$$;
-- committed pending flag of (partition, group) of the test queue
CREATE FUNCTION pg_temp.pending(p_partition text, p_group text) RETURNS bool LANGUAGE sql AS $$
  SELECT c.pending FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = (SELECT q FROM t) AND p.name = p_partition AND c.consumer_group = p_group
$$;

-- 1. ack while a push to the partition is in flight: the ack cannot settle it (the push
--    holds the partition row), and does not wait for it either
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('P', 'm1')) AS x(s text)), 'queued', 'm1 committed');
SELECT dblink_exec('b', format('CREATE TEMP TABLE held AS SELECT * FROM queen.pop_messages(%L, NULL, %L, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'g'));
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('P', 'm2')) AS x(s text)), 'queued', 'm2 pushed, not committed');
SELECT is((SELECT s FROM dblink('b', $$SELECT string_agg(a.transaction_id, ',') FROM queen.ack_messages(
             (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id)) FROM held),
             'g', '') a$$) AS x(s text)), 'm1',
          'b acks m1 (popped before), the last message it can see, without waiting for the push');
SELECT dblink_exec('a', 'COMMIT');
SELECT is(pg_temp.pending('P', 'g'), true, 'P is still pending after the push committed');
SELECT is((SELECT s FROM dblink('b', pg_temp.pop_ack_sql('g')) AS x(s text)), 'm2', 'm2 is delivered');
SELECT is(pg_temp.pending('P', 'g'), false, 'that ack found no push in flight and settled P');

-- 2. the other order: the settling ack holds the partition row in share mode until it
--    commits; the push waits for it and then sees the row unpending and flips it back
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('P', 'm3')) AS x(s text)), 'queued', 'm3 committed');
SELECT dblink_exec('b', 'BEGIN');
SELECT is((SELECT s FROM dblink('b', pg_temp.pop_ack_sql('g')) AS x(s text)), 'm3', 'b acks m3 and settles P (not committed yet)');
SELECT dblink_send_query('a', pg_temp.push_sql('P', 'm4'));
SELECT is(pg_temp.waits_for_a_lock('a'), true, 'a''s push waits for the settling transaction');
SELECT dblink_exec('b', 'COMMIT');
SELECT is((SELECT s FROM dblink_get_result('a') AS x(s text)), 'queued', 'then m4 is queued');
SELECT is((SELECT count(*) FROM dblink_get_result('a') AS x(s text)), 0::bigint, 'a has no further results');
SELECT is(pg_temp.pending('P', 'g'), true, 'and P is pending again');

-- 3. a group's first pop while a push creates a partition: the registration waits for
--    the creator and then gives the group a row on the new partition
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('N', 'n1')) AS x(s text)), 'queued', 'a creates partition N (not committed yet)');
SELECT dblink_send_query('b', format('SELECT count(*) FROM queen.pop_messages(%L, NULL, %L, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'late'));
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'the first pop waits for the partition''s creator');
SELECT dblink_exec('a', 'COMMIT');
SELECT is((SELECT n FROM dblink_get_result('b') AS x(n bigint)), 4::bigint, 'the new group''s first pop delivers P (oldest message first): m1-m4');
SELECT is((SELECT count(*) FROM dblink_get_result('b') AS x(n bigint)), 0::bigint, 'b has no further results');
SELECT is((SELECT array_agg(p.name::text ORDER BY p.name) FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = (SELECT q FROM t) AND c.consumer_group = 'late'),
          ARRAY['Default', 'N', 'P'], 'the group has a row on every partition, N included');

-- clean up what the other sessions committed
SELECT * FROM t, dblink('a', format('SELECT queen.delete_queue(%L, '''')::text', q)) AS x(deleted text);
SELECT dblink_disconnect('a');
SELECT dblink_disconnect('b');

SELECT * FROM finish();
ROLLBACK;
