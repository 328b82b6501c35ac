-- pgTAP: queen.run_transaction
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(28);

SELECT queen.configure_queue('t_tx_in', NULL, NULL, '{}', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_tx_in", "transactionId": "in1"}, {"queue": "t_tx_in", "transactionId": "in2"}, {"queue": "t_tx_in", "transactionId": "in3"}]', NULL, '');
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_tx_in', NULL, 'worker', 2, 1, false, NULL, NULL, NULL, NULL, '');
CREATE FUNCTION pg_temp.ack_op(p_txid text, p_extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('type', 'ack', 'transactionId', p_txid, 'partitionId', (SELECT partition_id FROM popped LIMIT 1), 'consumerGroup', 'worker') || p_extra
$$;
CREATE FUNCTION pg_temp.cursor(p_group text) RETURNS bigint LANGUAGE sql AS $$
  SELECT c.cursor_seq FROM queen.consumers c WHERE c.partition_id = (SELECT partition_id FROM popped LIMIT 1) AND c.consumer_group = p_group
$$;

-- 1. success: ack + push, flattened results
CREATE TEMP TABLE r1 AS SELECT queen.run_transaction(jsonb_build_object(
  'operations', jsonb_build_array(
     pg_temp.ack_op('in1', jsonb_build_object('leaseId', (SELECT lease_id FROM popped LIMIT 1))),
     '{"type": "push", "items": [{"queue": "t_tx_out", "partition": "p7", "payload": {"pdf": 1}}, {"queue": "t_tx_audit", "transactionId": "audit-1"}]}'::jsonb),
  'requiredLeases', jsonb_build_array((SELECT lease_id FROM popped LIMIT 1))), 'bob', '') AS v;
SELECT is((SELECT v -> 'success' FROM r1), 'true'::jsonb, 'success');
SELECT ok((SELECT (v ->> 'transactionId')::uuid IS NOT NULL FROM r1), 'a server-minted transaction id');
SELECT is((SELECT jsonb_path_query_array(v, '$.results[*].index') FROM r1), '[0, 1, 2]'::jsonb, 'results flattened: one per ack, one per pushed item');
SELECT is((SELECT v -> 'results' -> 0 FROM r1), '{"index": 0, "type": "ack", "success": true, "transactionId": "in1", "error": null, "dlq": false}'::jsonb,
          'the ack result');
SELECT is((SELECT v -> 'results' -> 2 ->> 'transactionId' FROM r1), 'audit-1', 'push results carry the transactionId');
SELECT is((SELECT m.id FROM queen.stored_messages m WHERE m.transaction_id = 'audit-1'), (SELECT (v -> 'results' -> 2 ->> 'messageId')::uuid FROM r1),
          '... and the stored message id');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id WHERE p.name = 'p7' AND m.producer_sub = 'bob'),
          1::bigint, 'pushes create queues/partitions and stamp producer_sub');
SELECT is(pg_temp.cursor('worker'), 1::bigint, 'the ack moved the cursor');
SELECT is((SELECT lease_id IS NOT NULL FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM popped LIMIT 1) AND consumer_group = 'worker'),
          true, 'the lease (n = 2) is still held after one ack');

-- 2. failure rolls everything back
CREATE TEMP TABLE r2 AS SELECT queen.run_transaction(jsonb_build_array(
  pg_temp.ack_op('in2'),
  '{"type": "push", "items": [{"queue": "t_tx_out", "transactionId": "fresh-1"}, {"queue": "t_tx_audit", "transactionId": "audit-1"}]}'::jsonb), NULL, '') AS v;
SELECT is((SELECT v -> 'success' FROM r2), 'false'::jsonb, 'a taken transactionId aborts the transaction');
SELECT ok((SELECT v ->> 'error' LIKE '%duplicate transactionId audit-1%' FROM r2), 'the error names the transactionId');
SELECT is((SELECT jsonb_array_length(v -> 'results') FROM r2), 2, 'results computed before the failure are listed');
SELECT is((SELECT count(*) FROM queen.stored_messages WHERE transaction_id = 'fresh-1'), 0::bigint, 'the other pushed item was rolled back');
SELECT is(pg_temp.cursor('worker'), 1::bigint, 'the ack was rolled back');

SELECT is((SELECT queen.run_transaction(jsonb_build_array(jsonb_build_object('type', 'ack', 'transactionId', 'nope', 'partitionId', (SELECT partition_id FROM popped LIMIT 1))), NULL, '') ->> 'error'),
          'ACK operation failed: Message not found', 'an unknown message fails the transaction');
SELECT is((SELECT queen.run_transaction(jsonb_build_array(pg_temp.ack_op('in2', jsonb_build_object('leaseId', gen_random_uuid()))), NULL, '') ->> 'error'),
          'ACK operation failed: Invalid or expired lease', 'a wrong lease fails the transaction');
SELECT is((SELECT queen.run_transaction(jsonb_build_array(pg_temp.ack_op('in2', '{"status": "bogus"}')), NULL, '') ->> 'error'),
          'ACK operation failed: Invalid status', 'an invalid status fails the transaction');
SELECT is((SELECT queen.run_transaction('[{"type": "frobnicate"}]', NULL, '') ->> 'error'), 'Unknown operation type: frobnicate', 'unknown operation type');
SELECT ok((SELECT queen.run_transaction(jsonb_build_object('operations', jsonb_build_array(pg_temp.ack_op('in2')),
                                                           'requiredLeases', jsonb_build_array(gen_random_uuid())), NULL, '') ->> 'error') LIKE 'Required lease % is not held',
          'requiredLeases: a lease that is not held fails the transaction');
SELECT is(pg_temp.cursor('worker'), 1::bigint, 'none of the failed transactions changed anything');

-- 3. failed / dlq acks go straight to the DLQ and release the lease
CREATE TEMP TABLE r3 AS SELECT queen.run_transaction(jsonb_build_array(pg_temp.ack_op('in2', '{"status": "failed"}')), NULL, '') AS v;
SELECT is((SELECT v -> 'results' -> 0 -> 'dlq' FROM r3), 'true'::jsonb, 'failed: dlq = true');
SELECT is((SELECT error_message || ':' || retry_count FROM queen.dlq WHERE transaction_id = 'in2' AND consumer_group = 'worker'), 'Unknown error:0',
          'DLQ row with the default error and retry count 0');
SELECT is((SELECT row(cursor_seq, lease_id IS NULL)::text FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM popped LIMIT 1) AND consumer_group = 'worker'),
          '(2,t)', 'cursor on the message, lease released');

-- 4. a completed ack for a group without a cursor row creates it at the message
SELECT is((SELECT queen.run_transaction(jsonb_build_array(pg_temp.ack_op('in3') || '{"consumerGroup": "newcomer"}'), NULL, '') -> 'success'), 'true'::jsonb,
          'ack for a new group');
SELECT is(pg_temp.cursor('newcomer'), 3::bigint, 'its cursor row starts at the message');
SELECT is((SELECT queen.run_transaction(jsonb_build_array(pg_temp.ack_op('in3') - 'consumerGroup'), NULL, '') -> 'success'), 'true'::jsonb, 'no group = queue mode');
SELECT is(pg_temp.cursor('__QUEUE_MODE__'), 3::bigint, 'queue-mode cursor moved');

-- 5. malformed requests
SELECT throws_ok($$SELECT queen.run_transaction('{"operations": []}', NULL, '')$$, '22023', 'operations array cannot be empty', 'empty operations is 22023');

SELECT * FROM finish();
ROLLBACK;
