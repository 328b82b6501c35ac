-- pgTAP: consumer-group administration under real concurrency (dblink sessions 'a' and 'b',
-- which commit on a queue of their own, deleted at the end; this session only observes).
-- The races: a seek to the end while a push to the partition has not committed must not lose
-- its message (nor wait for it unless the push holds the cursor row), and a group deletion while a push creates a partition
-- (and gives the group a cursor row there) must not leave that row behind.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(14);

\set queue_prefix t_cgc_
\ir support/dblink_sessions.psql

-- SQL text: push one message <txid> to partition <partition> of the test queue
CREATE FUNCTION pg_temp.push_sql(p_partition text, p_txid text) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT status FROM queen.push_messages(%L, NULL, '''')',
                jsonb_build_array(jsonb_build_object('queue', (SELECT q FROM t), 'partition', p_partition, 'transactionId', p_txid)))
$$;
-- SQL text: pop (group g, wildcard, autoAck, up to p_batch messages) and return the txids delivered
CREATE FUNCTION pg_temp.pop_sql(p_group text, p_batch int DEFAULT 10) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT coalesce(string_agg(transaction_id, %L ORDER BY transaction_id), %L) FROM queen.pop_messages(%L, NULL, %L, %s, 10, true, NULL, NULL, NULL, NULL, '''')',
                ',', '', (SELECT q FROM t), p_group, p_batch)
$$;
-- committed pending flag of (partition, group) of the test queue
CREATE FUNCTION pg_temp.pending(p_partition text, p_group text) RETURNS bool LANGUAGE sql AS $$
  SELECT c.pending FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = (SELECT q FROM t) AND p.name = p_partition AND c.consumer_group = p_group
$$;
CREATE FUNCTION pg_temp.seek_to_end_sql() RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT queen.seek_consumer_group(%L, %L, true, NULL, '''')', 'g', (SELECT q FROM t))
$$;

-- 1. seek to the end while a push to a pending partition is in flight: the push does not
--    hold the cursor row (it is pending already), so the seek does not wait; it cannot
--    settle the partition the push holds, so the pushed message is delivered next
SELECT is((SELECT string_agg(s, ',') FROM dblink('a', pg_temp.push_sql('P', 'm1') || ' UNION ALL ' || pg_temp.push_sql('P', 'm2')) AS x(s text)),
          'queued,queued', 'm1 and m2 committed');
SELECT is((SELECT s FROM dblink('b', pg_temp.pop_sql('g', 1)) AS x(s text)), 'm1', 'g consumed m1; P stays pending');
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('P', 'm3')) AS x(s text)), 'queued', 'm3 pushed, not committed');
SELECT is((SELECT n FROM dblink('b', pg_temp.seek_to_end_sql()) AS x(n int)), 2,
          'the seek to the end moves both rows without waiting for the push');
SELECT dblink_exec('a', 'COMMIT');
SELECT is(pg_temp.pending('P', 'g'), true, 'P is pending after the push committed');
SELECT is((SELECT s FROM dblink('b', pg_temp.pop_sql('g')) AS x(s text)), 'm3', 'm2 was skipped, m3 is delivered');

-- 2. a push holding a drained cursor row (it sets pending there): the seek waits for it,
--    then sees its message and moves past it
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('P', 'm4')) AS x(s text)), 'queued', 'm4 pushed, not committed');
SELECT dblink_send_query('b', pg_temp.seek_to_end_sql());
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'the seek waits for the push that holds the cursor row');
SELECT dblink_exec('a', 'COMMIT');
SELECT is((SELECT n FROM dblink_get_result('b') AS x(n int)), 2, 'then moves both rows');
SELECT * FROM dblink_get_result('b') AS x(n int);
SELECT is((SELECT s FROM dblink('b', pg_temp.pop_sql('g')) AS x(s text)), '', 'm4 was before the end it sought: nothing to pop');

-- 2. delete the group while a push creates a partition (its cursor row for g is not committed yet)
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT s FROM dblink('a', pg_temp.push_sql('N', 'n1')) AS x(s text)), 'queued', 'a creates partition N (not committed yet)');
SELECT dblink_send_query('b', format('SELECT queen.delete_consumer_group(%L, %L, true, '''')', 'g', (SELECT q FROM t)));
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'the delete waits for the partition''s creator');
SELECT dblink_exec('a', 'COMMIT');
SELECT is((SELECT n FROM dblink_get_result('b') AS x(n int)), 3, 'then removes the group''s rows, N''s included');
SELECT is((SELECT count(*) FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id
            WHERE q.name = (SELECT q FROM t) AND c.consumer_group = 'g'), 0::bigint, 'no cursor row of the group is left');
SELECT * FROM dblink_get_result('b') AS x(n int);

-- clean up what the other sessions committed
SELECT * FROM t, dblink('a', format('SELECT queen.delete_queue(%L, '''')::text', q)) AS x(deleted text);
SELECT dblink_disconnect('a');
SELECT dblink_disconnect('b');

SELECT * FROM finish();
ROLLBACK;
