-- pgTAP: queen.expire_messages
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(16);

-- the sweep covers every queue: switch expiry off for queues other tests left behind
UPDATE queen.queues SET ttl = 0, max_wait_time_seconds = 0;

\ir support/sweep_helpers.psql
CREATE FUNCTION pg_temp.dlq(p_queue text) RETURNS text[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(d.consumer_group || ':' || d.transaction_id ORDER BY d.consumer_group, d.transaction_id), '{}')
    FROM queen.dlq d JOIN queen.partitions p ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = p_queue
$$;

-- 1. ttl, nobody consuming: expires for the queue-mode group
SELECT queen.configure_queue('t_exp1', NULL, NULL, '{"ttl": 60, "retryDelay": 0}', '');
SELECT pg_temp.push('t_exp1', 2, 'e');
SELECT pg_temp.push('t_exp1', 1, 'young');
-- at young1's creation + 60 s, e1 and e2 (pushed before it) are older than ttl, young1 is not
SELECT is(queen.expire_messages(100, pg_temp.after('t_exp1', 'e1', 60)), 0, 'nothing is older than ttl at its very end');
SELECT is(queen.expire_messages(100, pg_temp.after('t_exp1', 'young1', 60)), 2, 'two messages older than ttl expired');
SELECT is(pg_temp.dlq('t_exp1'), ARRAY['__QUEUE_MODE__:e1', '__QUEUE_MODE__:e2'], 'dead-lettered for queue mode');
SELECT is((SELECT DISTINCT error_message || '/' || retry_count FROM queen.dlq WHERE transaction_id IN ('e1', 'e2')), 'Message expired: ttl of 60 s exceeded/0',
          'the reason names ttl');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages('t_exp1', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['young1'], 'only the young message is still delivered');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_exp1'),
          3::bigint, 'expiry moves cursors, it deletes nothing');
SELECT is(queen.expire_messages(100, pg_temp.after('t_exp1', 'young1', 60)), 0, 'nothing left to expire');
UPDATE queen.queues SET ttl = 0 WHERE name = 't_exp1';

-- 2. maxWaitTimeSeconds below ttl, per group; leased batches are left alone
SELECT queen.configure_queue('t_exp2', NULL, NULL, '{"ttl": 3600, "maxWaitTimeSeconds": 30, "retryDelay": 0}', '');
SELECT pg_temp.push('t_exp2', 2, 'w');
SELECT count(*) FROM queen.pop_messages('t_exp2', NULL, 'leased', 10, 1, false, NULL, NULL, NULL, NULL, '');
CREATE TEMP TABLE f AS SELECT * FROM queen.pop_messages('t_exp2', NULL, 'free', 10, 1, false, NULL, NULL, NULL, NULL, '');
SELECT count(*) FROM queen.ack_messages((SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'status', 'retry')) FROM f), 'free', '');
SELECT is(queen.expire_messages(100, pg_temp.after('t_exp2', 'w1', 31)), 2, 'the free group''s two messages expired');
SELECT is(pg_temp.dlq('t_exp2'), ARRAY['free:w1', 'free:w2'], 'the leased group''s batch is left to its consumer; queue mode never joined');
SELECT is((SELECT DISTINCT error_message FROM queen.dlq WHERE transaction_id = 'w1'), 'Message expired: maxWaitTimeSeconds of 30 s exceeded',
          'the smaller limit (maxWaitTimeSeconds) is the reason');
SELECT is((SELECT cursor_seq FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
            WHERE q.name = 't_exp2' AND c.consumer_group = 'free'), 2::bigint, 'the free group''s cursor passed them');
UPDATE queen.queues SET ttl = 0, max_wait_time_seconds = 0 WHERE name = 't_exp2';

-- 3. the batch bounds the work
SELECT queen.configure_queue('t_exp3', NULL, NULL, '{"ttl": 10}', '');
SELECT pg_temp.push('t_exp3', 5, 'b');
SELECT is(queen.expire_messages(3, pg_temp.after('t_exp3', 'b1', 60)), 3, 'at most p_batch entries per call');
SELECT is(queen.expire_messages(3, pg_temp.after('t_exp3', 'b1', 60)), 2, 'the rest on the next call');
SELECT is(queen.expire_messages(3, pg_temp.after('t_exp3', 'b1', 60)), 0, 'then nothing');
UPDATE queen.queues SET ttl = 0 WHERE name = 't_exp3';

-- 4. both limits off: never
SELECT queen.configure_queue('t_exp4', NULL, NULL, '{"ttl": 0, "maxWaitTimeSeconds": 0}', '');
SELECT pg_temp.push('t_exp4', 1, 'n');
SELECT is(queen.expire_messages(100, pg_temp.after('t_exp4', 'n1', 864000)), 0, 'ttl 0 and maxWaitTimeSeconds 0: nothing expires');

SELECT throws_ok($$SELECT queen.expire_messages(0)$$, '22023', NULL, 'batch < 1 is 22023');

SELECT * FROM finish();
ROLLBACK;
