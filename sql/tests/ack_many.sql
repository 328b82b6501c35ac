-- pgTAP: queen.ack_many and ack_lease_group (ack combining)
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(12);

-- the JSON ack of message p_txid of (p_queue, p_partition) with lease p_lease
CREATE FUNCTION pg_temp.ack(p_queue text, p_partition text, p_txid text, p_lease uuid) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT jsonb_build_object('transactionId', p_txid, 'partitionId', p.id::text, 'leaseId', p_lease::text)
    FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = p_queue AND p.name = p_partition
$$;
CREATE FUNCTION pg_temp.cursor(p_queue text, p_partition text, p_group text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT c.cursor_seq FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = p_queue AND p.name = p_partition AND c.consumer_group = p_group
$$;

-- 1. bad requests are clear 22023 errors
SELECT throws_ok($$SELECT * FROM queen.ack_many('[]', '')$$, '22023', NULL, 'no requests');
SELECT throws_ok($$SELECT * FROM queen.ack_many('{}', '')$$, '22023', NULL, 'not an array');
SELECT throws_ok($$SELECT * FROM queen.ack_many('[{"group": 1, "acks": []}]', '')$$, '22023', NULL, 'a group that is no string');
SELECT throws_ok($$SELECT * FROM queen.ack_many('[{"group": null}]', '')$$, '22023', NULL, 'a request without acks');

-- 2. three consumers: queue mode on p1, group g on p2 acking without naming it, group g on p3 naming it
SELECT queen.configure_queue('t_ackm', NULL, NULL, '{"leaseTime": 30}', '');
SELECT count(*) FROM queen.push_messages('[{"queue":"t_ackm","partition":"p1","transactionId":"a"},
                                           {"queue":"t_ackm","partition":"p2","transactionId":"b"},
                                           {"queue":"t_ackm","partition":"p3","transactionId":"c"}]', NULL, '');
CREATE TEMP TABLE qm AS SELECT * FROM queen.pop_messages('t_ackm', 'p1', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
CREATE TEMP TABLE g2 AS SELECT * FROM queen.pop_messages('t_ackm', 'p2', 'g', 1, 1, false, NULL, NULL, NULL, NULL, '');
CREATE TEMP TABLE g3 AS SELECT * FROM queen.pop_messages('t_ackm', 'p3', 'g', 1, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is(queen_internal.ack_lease_group(jsonb_build_array(pg_temp.ack('t_ackm', 'p2', 'b', (SELECT lease_id FROM g2))), ''), 'g',
          'ack_lease_group recognises the group by its lease');

CREATE TEMP TABLE res AS SELECT * FROM queen.ack_many(jsonb_build_array(
  jsonb_build_object('group', NULL, 'acks', jsonb_build_array(pg_temp.ack('t_ackm', 'p1', 'a', (SELECT lease_id FROM qm)),
                                                              '{"transactionId": "nope", "partitionId": "x"}'::jsonb)),
  jsonb_build_object('group', NULL, 'acks', jsonb_build_array(pg_temp.ack('t_ackm', 'p2', 'b', (SELECT lease_id FROM g2)))),
  jsonb_build_object('group', 'g', 'acks', jsonb_build_array(pg_temp.ack('t_ackm', 'p3', 'c', (SELECT lease_id FROM g3))))), '');
SELECT is((SELECT array_agg(request_idx || ':' || idx || ':' || transaction_id || ':' || success ORDER BY request_idx, idx) FROM res),
          ARRAY['0:0:a:true', '0:1:nope:false', '1:0:b:true', '2:0:c:true'], 'one row per item, request_idx and idx within the request');
SELECT is((SELECT error FROM res WHERE transaction_id = 'nope'), 'Message not found', 'a failed item fails alone');
SELECT is(pg_temp.cursor('t_ackm', 'p1', '__QUEUE_MODE__'), 1::bigint, 'the queue-mode ack moved the queue-mode cursor');
SELECT is(pg_temp.cursor('t_ackm', 'p2', 'g'), 1::bigint, 'the ack without a group moved the cursor of the group its lease names');
SELECT is(pg_temp.cursor('t_ackm', 'p2', '__QUEUE_MODE__'), NULL, '... and not a queue-mode cursor');
SELECT is(pg_temp.cursor('t_ackm', 'p3', 'g'), 1::bigint, 'the ack naming its group moved that group''s cursor');
SELECT ok((SELECT bool_and(lease_released) FROM res WHERE success), 'every completed batch released its lease');

SELECT * FROM finish();
ROLLBACK;
