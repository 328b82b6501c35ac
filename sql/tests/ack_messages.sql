-- pgTAP: queen.ack_messages
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(58);

CREATE FUNCTION pg_temp.push(p_queue text, p_n int, p_prefix text) RETURNS void
LANGUAGE sql AS $$
  SELECT count(*) FROM queen.push_messages(
    (SELECT jsonb_agg(jsonb_build_object('queue', p_queue, 'transactionId', p_prefix || i, 'payload', jsonb_build_object('i', i)) ORDER BY i)
       FROM generate_series(1, p_n) i), NULL, '')
$$;
-- pop into table "batch" (replacing it)
CREATE TEMP TABLE batch AS SELECT * FROM queen.pop_messages('none', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
CREATE FUNCTION pg_temp.pop(p_queue text, p_group text, p_n int) RETURNS bigint
LANGUAGE sql AS $$
  DELETE FROM batch;
  INSERT INTO batch SELECT * FROM queen.pop_messages(p_queue, NULL, p_group, p_n, 1, false, NULL, NULL, NULL, NULL, '');
  SELECT count(*) FROM batch;
$$;
-- one ack item for message p_txid of the current batch
CREATE FUNCTION pg_temp.item(p_txid text, p_status text, p_error text DEFAULT NULL) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('transactionId', b.transaction_id, 'partitionId', b.partition_id,
                                              'leaseId', b.lease_id, 'status', p_status, 'error', p_error))
    FROM batch b WHERE b.transaction_id = p_txid
$$;
CREATE FUNCTION pg_temp.state(p_queue text, p_group text DEFAULT '__QUEUE_MODE__') RETURNS text
LANGUAGE sql AS $$
  SELECT row(c.cursor_seq, c.lease_id IS NOT NULL, c.retry_count)::text
    FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = p_queue AND c.consumer_group = p_group
$$;

-- 1. completed: cursor forward, release when the whole batch is acked
SELECT queen.configure_queue('t_ack', NULL, NULL, '{"retryLimit": 2, "retryDelay": 0}', '');
SELECT pg_temp.push('t_ack', 6, 'm');
SELECT is(pg_temp.pop('t_ack', NULL, 3), 3::bigint, 'popped m1..m3');
CREATE TEMP TABLE a1 AS SELECT * FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m1', 'completed')), NULL, '');
SELECT is((SELECT row(idx, transaction_id, success, error, queue_name, partition_name, lease_released, dlq)::text FROM a1),
          '(0,m1,t,,t_ack,Default,f,f)', 'a completed ack: success, names, lease kept');
SELECT is(pg_temp.state('t_ack'), '(1,t,0)', 'cursor on m1, lease still held');
SELECT is((SELECT lease_acked FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM batch LIMIT 1) AND consumer_group = '__QUEUE_MODE__'), 1, 'k = 1');
CREATE TEMP TABLE a2 AS SELECT * FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m2', 'success'), pg_temp.item('m3', NULL)), NULL, '');
SELECT is((SELECT array_agg(row(success, lease_released)::text ORDER BY idx) FROM a2), ARRAY['(t,f)', '(t,t)'],
          'success is an alias, absent status means completed; the last ack releases the lease');
SELECT is(pg_temp.state('t_ack'), '(3,f,0)', 'cursor on m3, no lease');
SELECT is((SELECT total_consumed FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM batch LIMIT 1) AND consumer_group = '__QUEUE_MODE__'),
          3::bigint, 'consumption counted');
SELECT is((SELECT success FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m1', 'completed') - 'leaseId'), NULL, '')), true,
          'acking an already consumed message without a lease is a harmless success');
SELECT is(pg_temp.state('t_ack'), '(3,f,0)', '... and never moves the cursor back');

-- 2. failed with retries left: the whole batch comes back, one retry per batch
SELECT is(pg_temp.pop('t_ack', NULL, 3), 3::bigint, 'popped m4..m6');
CREATE TEMP TABLE a3 AS SELECT * FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m4', 'completed'), pg_temp.item('m5', 'failed'), pg_temp.item('m6', 'failed')), NULL, '');
SELECT is((SELECT array_agg(row(success, lease_released, dlq)::text ORDER BY idx) FROM a3), ARRAY['(t,f,f)', '(t,t,f)', '(t,f,f)'],
          'mixed batch: all succeed, the first failure releases the lease');
SELECT is(pg_temp.state('t_ack'), '(4,f,1)', 'cursor stops before the failed message; two failures in one request cost one retry');
SELECT is((SELECT success FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m6', 'failed')), NULL, '')), true,
          'a later failed ack of the released batch is a no-op success');
SELECT is(pg_temp.state('t_ack'), '(4,f,1)', '... that does not spend another retry');
SELECT is((SELECT error FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m6', 'completed')), NULL, '') ), 'Invalid or expired lease',
          'a completed ack with the released lease id is rejected');
SELECT is(pg_temp.pop('t_ack', NULL, 10), 2::bigint, 'the failed part of the batch is redelivered');
SELECT is((SELECT array_agg(transaction_id || ':' || retry_count ORDER BY transaction_id) FROM batch), ARRAY['m5:1', 'm6:1'], 'with retry_count 1');

-- 3. a completed ack after a failed one never skips it (request order does not matter)
CREATE TEMP TABLE a4 AS SELECT * FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m6', 'completed'), pg_temp.item('m5', 'failed')), NULL, '');
SELECT is((SELECT array_agg(success ORDER BY idx) FROM a4), ARRAY[true, true], 'both items succeed');
SELECT is(pg_temp.state('t_ack'), '(4,f,2)', 'the cursor did not pass the failed m5; r = 2');

-- 4. retries exhausted: dead letter, then like completed, r reset
SELECT is(pg_temp.pop('t_ack', NULL, 10), 2::bigint, 'third delivery');
CREATE TEMP TABLE a5 AS SELECT * FROM queen.ack_messages(jsonb_build_array(pg_temp.item('m5', 'failed', 'smtp 451'), pg_temp.item('m6', 'failed')), NULL, '');
SELECT is((SELECT array_agg(row(success, dlq)::text ORDER BY idx) FROM a5), ARRAY['(t,t)', '(t,t)'], 'past retryLimit both go to the DLQ');
SELECT is(pg_temp.state('t_ack'), '(6,f,0)', 'cursor past them, lease released, retries reset');
SELECT is((SELECT array_agg(transaction_id || ':' || error_message || ':' || retry_count || ':' || consumer_group ORDER BY transaction_id) FROM queen.dlq WHERE partition_id = (SELECT partition_id FROM batch LIMIT 1)),
          ARRAY['m5:smtp 451:2:__QUEUE_MODE__', 'm6:Retries exhausted:2:__QUEUE_MODE__'], 'DLQ rows: supplied error or the default, retry count');
SELECT is((SELECT p.payload FROM queen.dlq d JOIN queen.dlq_payloads p ON p.message_id = d.message_id WHERE d.transaction_id = 'm5'), '{"i": 5}'::jsonb, 'the DLQ entry''s payload copy is stored once per message');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN queen.dlq d ON d.message_id = m.id WHERE d.partition_id = (SELECT partition_id FROM batch LIMIT 1)), 2::bigint, 'the message rows stay');

-- 5. retryLimit 0, dlq and retry statuses, per-group DLQ
SELECT queen.configure_queue('t_ack0', NULL, NULL, '{"retryLimit": 0, "retryDelay": 0}', '');
SELECT pg_temp.push('t_ack0', 3, 'z');
SELECT is(pg_temp.pop('t_ack0', 'ga', 1), 1::bigint, 'group ga pops z1');
SELECT is((SELECT dlq FROM queen.ack_messages(jsonb_build_array(pg_temp.item('z1', 'failed')), 'ga', '')), true, 'retryLimit 0: the first failure dead-letters');
SELECT is(pg_temp.state('t_ack0', 'ga'), '(1,f,0)', 'and consumes it for that group');
SELECT is(pg_temp.pop('t_ack0', 'gb', 1), 1::bigint, 'group gb still receives z1 (the DLQ is per group)');
SELECT is((SELECT transaction_id FROM batch), 'z1', '... z1 indeed');
SELECT is((SELECT dlq FROM queen.ack_messages(jsonb_build_array(pg_temp.item('z1', 'dlq', 'poison')), 'gb', '')), true, 'status dlq dead-letters at once');
SELECT is((SELECT count(*) FROM queen.dlq WHERE transaction_id = 'z1'), 2::bigint, 'one DLQ row per group');
SELECT is(pg_temp.pop('t_ack0', 'gb', 1), 1::bigint, 'gb pops z2');
SELECT is((SELECT row(success, lease_released, dlq)::text FROM queen.ack_messages(jsonb_build_array(pg_temp.item('z2', 'retry')), 'gb', '')), '(t,t,f)',
          'retry releases the lease');
SELECT is(pg_temp.state('t_ack0', 'gb'), '(1,f,0)', 'retry spends no retry and keeps the cursor');
SELECT is(pg_temp.pop('t_ack0', 'gb', 1), 1::bigint, 'retry: redelivered at once');
SELECT is((SELECT transaction_id || ':' || retry_count FROM batch), 'z2:0', 'the same message, retry_count unchanged');

-- 6. retryDelay gate after a failure
SELECT queen.configure_queue('t_gate', NULL, NULL, '{"retryDelay": 5000}', '');
SELECT pg_temp.push('t_gate', 1, 'g');
SELECT is(pg_temp.pop('t_gate', NULL, 1), 1::bigint, 'popped g1');
SELECT is((SELECT success FROM queen.ack_messages(jsonb_build_array(pg_temp.item('g1', 'failed')), NULL, '')), true, 'failed');
SELECT is((SELECT available_at FROM queen.consumers c WHERE c.partition_id = (SELECT partition_id FROM batch LIMIT 1)),
          now() + interval '5 seconds', 'the partition is gated for retryDelay');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_gate', NULL, NULL, 1, p_now => now() + interval '4.999 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 0::bigint,
          'no redelivery before retryDelay');
SELECT is((SELECT retry_count FROM queen.pop_messages('t_gate', NULL, NULL, 1, p_now => now() + interval '5 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 1,
          'redelivered after it, retry_count 1');

-- 7. per-item failures
SELECT pg_temp.push('t_ack', 2, 'v');
SELECT is(pg_temp.pop('t_ack', NULL, 1), 1::bigint, 'popped v1');
CREATE TEMP TABLE a6 AS SELECT * FROM queen.ack_messages(jsonb_build_array(
  jsonb_build_object('transactionId', 'nope', 'partitionId', (SELECT partition_id FROM batch)),
  jsonb_build_object('transactionId', 'v1', 'partitionId', 'not-a-uuid'),
  jsonb_build_object('transactionId', 'v1', 'partitionId', gen_random_uuid()),
  pg_temp.item('v1', 'completed') || jsonb_build_object('leaseId', gen_random_uuid()),
  pg_temp.item('v1', 'completed') || '{"leaseId": "garbage"}',
  pg_temp.item('v1', 'maybe'),
  pg_temp.item('v1', 'completed')), NULL, '');
SELECT is((SELECT array_agg(coalesce(error, 'ok') ORDER BY idx) FROM a6),
          ARRAY['Message not found', 'Message not found', 'Message not found', 'Invalid or expired lease', 'Invalid or expired lease', 'Invalid status', 'ok'],
          'per-item errors, in request order; a bad item does not fail the others');
SELECT is((SELECT array_agg(idx ORDER BY idx) FROM a6), ARRAY[0, 1, 2, 3, 4, 5, 6], 'one row per item');
SELECT is(pg_temp.state('t_ack'), '(7,f,0)', 'the valid item applied');
SELECT is(pg_temp.pop('t_ack', NULL, 1), 1::bigint, 'popped v2');
-- leaseTime is 300 s: acks at now + 300 s find the lease expired
SELECT is((SELECT error FROM queen.ack_messages(jsonb_build_array(pg_temp.item('v2', 'completed')), NULL, p_now => now() + interval '300 seconds', p_tenant => '')),
          'Invalid or expired lease', 'an expired lease is rejected');
SELECT is((SELECT success FROM queen.ack_messages(jsonb_build_array(pg_temp.item('v2', 'completed') - 'leaseId'), NULL, p_now => now() + interval '300 seconds', p_tenant => '')),
          true, 'without a lease id any caller may ack');
SELECT is(pg_temp.state('t_ack'), '(8,f,0)', 'that ack moved the cursor past the whole (expired) batch and cleared the lease');

-- 8. an ack for a group that never popped creates its cursor row
SELECT is((SELECT success FROM queen.ack_messages(jsonb_build_array(pg_temp.item('v2', 'completed') - 'leaseId'), 'g_never', '')), true, 'ack without a pop');
SELECT is(pg_temp.state('t_ack', 'g_never'), '(8,f,0)', 'the group''s cursor row exists, at the message');

-- 9. validation
SELECT throws_ok($$SELECT * FROM queen.ack_messages('{}', NULL, '')$$, '22023', NULL, 'acks must be an array');
SELECT throws_ok($$SELECT * FROM queen.ack_messages('[{"partitionId": "x"}]', NULL, '')$$, '22023', NULL, 'an item without transactionId is 22023');
SELECT is((SELECT count(*) FROM queen.ack_messages('[]', NULL, '')), 0::bigint, 'an empty array returns no rows');

-- No group named: the group is the one holding the lease.
SELECT queen.configure_queue('t_infer', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_infer', 2, 'f');
SELECT is(pg_temp.pop('t_infer', 'mailer', 2), 2::bigint, 'group mailer popped f1, f2');
SELECT is((SELECT bool_and(success) FROM queen.ack_messages(jsonb_build_array(pg_temp.item('f1', 'completed'),
                                                                               pg_temp.item('f2', 'completed')), NULL, '')),
          true, 'acks without a group but with the lease succeed');
SELECT is(pg_temp.state('t_infer', 'mailer'), '(2,f,0)', '... and moved the mailer cursor, not the queue mode''s');

SELECT * FROM finish();
ROLLBACK;
