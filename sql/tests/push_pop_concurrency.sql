-- pgTAP: push_messages and pop_messages under real concurrency.
-- Two extra sessions (dblink 'a' and 'b') race each other. They cannot see this
-- file's transaction, so they create their own queue (a unique name per run), commit
-- it, and the end of the file deletes it again. This session only observes.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(19);

\set queue_prefix t_conc_
\ir support/dblink_sessions.psql

-- push items as JSON for queue t.q
CREATE FUNCTION pg_temp.items(p_spec text[]) RETURNS text LANGUAGE sql AS $$
  SELECT jsonb_agg(jsonb_build_object('queue', (SELECT q FROM t), 'partition', split_part(s, ':', 1), 'transactionId', split_part(s, ':', 2)))::text
    FROM unnest(p_spec) s
$$;

-- 1. the same transactionId pushed by two sessions at once: exactly one queued
SELECT dblink_exec('a', 'BEGIN');
CREATE TEMP TABLE ra AS SELECT * FROM dblink('a', format('SELECT status, message_id::text FROM queen.push_messages(%L, NULL, '''')', pg_temp.items(ARRAY['P:same', 'P:only-a'])))
  AS x(status text, message_id text);
SELECT is((SELECT array_agg(status) FROM ra), ARRAY['queued', 'queued'], 'session a queued its items (not committed yet)');
SELECT dblink_send_query('b', format('SELECT status, message_id::text FROM queen.push_messages(%L, NULL, '''')', pg_temp.items(ARRAY['Q:other', 'P:same', 'P:only-b'])));
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'session b waits for the partition lock held by a');
SELECT dblink_exec('a', 'COMMIT');
CREATE TEMP TABLE rb AS SELECT * FROM dblink_get_result('b') AS x(status text, message_id text);
SELECT is((SELECT count(*) FROM dblink_get_result('b') AS x(status text, message_id text)), 0::bigint, 'b has no further results');
SELECT is((SELECT array_agg(status) FROM rb), ARRAY['queued', 'duplicate', 'queued'], 'b: the shared key is a duplicate, the rest queued');
SELECT is((SELECT message_id FROM rb OFFSET 1 LIMIT 1), (SELECT message_id FROM ra LIMIT 1), 'b reports the winner''s message id');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues qq ON qq.id = p.queue_id
            WHERE qq.name = (SELECT q FROM t) AND m.transaction_id = 'same'), 1::bigint, 'one stored row for the shared key');
SELECT is((SELECT array_agg(m.transaction_id || '@' || m.seq ORDER BY m.seq) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues qq ON qq.id = p.queue_id WHERE qq.name = (SELECT q FROM t) AND p.name = 'P'),
          ARRAY['same@1', 'only-a@2', 'only-b@3'], 'partition P: gap-free sequence in commit order');
SELECT ok((SELECT bool_and(m2.created_at > m1.created_at) FROM queen.stored_messages m1 JOIN queen.stored_messages m2 ON m2.partition_id = m1.partition_id AND m2.seq = 3
            WHERE m1.seq = 2 AND m1.transaction_id = 'only-a'), 'the later commit has the later created_at');

-- 2. the first pops ever on a partition race to create the group's cursor row: the
--    second waits for the first (a short wait: pops are single statements) and then
--    finds the partition leased
SELECT dblink_exec('a', 'BEGIN');
SELECT is((SELECT count(*) FROM dblink('a', format('SELECT transaction_id FROM queen.pop_messages(%L, %L, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'Q')) AS x(transaction_id text)),
          1::bigint, 'session a claimed the fresh partition Q (not committed yet)');
SELECT dblink_send_query('b', format('SELECT transaction_id FROM queen.pop_messages(%L, %L, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'Q'));
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'session b waits for a''s new cursor row');
SELECT dblink_exec('a', 'COMMIT');
SELECT is((SELECT count(*) FROM dblink_get_result('b') AS x(transaction_id text)), 0::bigint, 'then b gets nothing: Q is leased');
SELECT is((SELECT count(*) FROM dblink_get_result('b') AS x(transaction_id text)), 0::bigint, 'b has no further results');

-- 3. two sessions pop a partition whose cursor row exists: the loser skips at once.
--    (Create the queue-mode row of P first: pop one message and give it back.)
SELECT is((SELECT x.status FROM dblink('a', format($$SELECT a.success::text FROM queen.pop_messages(%L, 'P', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '') m,
             queen.ack_messages(jsonb_build_array(jsonb_build_object('transactionId', m.transaction_id, 'partitionId', m.partition_id,
                                                                     'leaseId', m.lease_id, 'status', 'retry')), NULL, '') a$$, (SELECT q FROM t))) AS x(status text)),
          'true', 'P has a committed cursor row and no lease');
SELECT dblink_exec('a', 'BEGIN');
CREATE TEMP TABLE pa AS SELECT * FROM dblink('a', format('SELECT transaction_id, lease_id::text FROM queen.pop_messages(%L, %L, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'P'))
  AS x(transaction_id text, lease_id text);
SELECT is((SELECT count(*) FROM pa), 3::bigint, 'session a claimed partition P (not committed yet)');
SELECT is((SELECT count(*) FROM dblink('b', format('SELECT transaction_id FROM queen.pop_messages(%L, %L, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'P')) AS x(transaction_id text)),
          0::bigint, 'session b skips the locked partition instead of waiting');
SELECT is((SELECT count(*) FROM dblink('b', format('SELECT transaction_id FROM queen.pop_messages(%L, %L, %L, 10, 1, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t), 'P', 'other-group')) AS x(transaction_id text)),
          3::bigint, 'another consumer group is not blocked');
SELECT dblink_exec('a', 'COMMIT');
SELECT is((SELECT count(*) FROM dblink('b', format('SELECT transaction_id FROM queen.pop_messages(%L, NULL, NULL, 10, 5, false, NULL, NULL, NULL, NULL, '''')', (SELECT q FROM t))) AS x(transaction_id text)
            WHERE x.transaction_id IN ('same', 'only-a', 'only-b')), 0::bigint, 'after a commits, b still gets nothing from P (lease held)');
SELECT is((SELECT count(*) FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues qq ON qq.id = p.queue_id
            WHERE qq.name = (SELECT q FROM t) AND p.name = 'P' AND c.consumer_group = '__QUEUE_MODE__' AND c.lease_id IS NOT NULL), 1::bigint,
          'exactly one queue-mode lease on P');
SELECT is((SELECT c.lease_id::text FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues qq ON qq.id = p.queue_id
            WHERE qq.name = (SELECT q FROM t) AND p.name = 'P' AND c.consumer_group = '__QUEUE_MODE__'), (SELECT lease_id FROM pa LIMIT 1),
          '... and it is a''s');

-- clean up what the other sessions committed
SELECT * FROM t, dblink('a', format('SELECT queen.delete_queue(%L, '''')::text', q)) AS x(deleted text);
SELECT dblink_disconnect('a');
SELECT dblink_disconnect('b');

SELECT * FROM finish();
ROLLBACK;
