-- pgTAP: queen.list_messages, get_message, delete_message, clear_queue, list_partitions, dead_letter_message
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(25);

SELECT count(*) FROM queen.push_messages('[
  {"queue": "t_ma_a", "partition": "p1", "transactionId": "a1", "payload": {"n": 1}},
  {"queue": "t_ma_a", "partition": "p1", "transactionId": "a2"},
  {"queue": "t_ma_a", "partition": "p2", "transactionId": "a3"}]', 'carol', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_ma_a", "partition": "p1", "transactionId": "x1"}]', NULL, 'other');
CREATE TEMP TABLE p1 AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                         WHERE q.name = 't_ma_a' AND q.tenant = '' AND p.name = 'p1';
-- a1 popped and acked in queue mode, a2 leased
SELECT count(*) FROM queen.pop_messages('t_ma_a', 'p1', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
SELECT count(*) FROM queen.ack_messages(jsonb_build_array(jsonb_build_object('transactionId', 'a1', 'partitionId', (SELECT id FROM p1), 'status', 'completed')), NULL, '');
SELECT count(*) FROM queen.pop_messages('t_ma_a', 'p1', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');

-- list
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_ma_a', NULL, NULL, NULL, NULL, NULL, NULL, 200, 0, '') -> 'messages') m),
          ARRAY['a3', 'a2', 'a1'], 'newest first, this tenant only');
SELECT is((SELECT array_agg(m ->> 'transactionId' || '=' || (m ->> 'status')) FROM jsonb_array_elements(queen.list_messages('t_ma_a', 'p1', NULL, NULL, NULL, NULL, NULL, 200, 0, '') -> 'messages') m),
          ARRAY['a2=processing', 'a1=completed'], 'status per message, partition filter');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_ma_a', NULL, NULL, NULL, 'completed', NULL, NULL, 200, 0, '') -> 'messages') m),
          ARRAY['a1'], 'status filter');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_ma_a', NULL, NULL, NULL, NULL, NULL, NULL, 1, 1, '') -> 'messages') m),
          ARRAY['a2'], 'limit/offset');
SELECT is(queen.list_messages('t_ma_a', NULL, NULL, NULL, NULL, now() - interval '2 hours', now() - interval '1 hour', 200, 0, '') -> 'messages',
          '[]'::jsonb, 'outside the time window: nothing');
SELECT is(queen.list_messages('t_ma_a', NULL, NULL, NULL, NULL, NULL, NULL, 200, 0, '') -> 'mode', '{"type": "queue", "hasQueueMode": true, "busGroupsCount": 0}'::jsonb, 'mode');
SELECT is((SELECT array(SELECT jsonb_object_keys(m) ORDER BY 1) FROM jsonb_array_elements(queen.list_messages('t_ma_a', NULL, NULL, NULL, NULL, NULL, NULL, 200, 0, '') -> 'messages') m LIMIT 1),
          ARRAY['busStatus', 'createdAt', 'id', 'leaseExpiresAt', 'namespace', 'partition', 'partitionId', 'producerSub', 'queue',
                'queuePath', 'queuePriority', 'queueStatus', 'status', 'task', 'traceId', 'transactionId'], 'list item keys');
SELECT throws_ok($$SELECT queen.list_messages(p_status => 'weird', p_queue => NULL, p_partition => NULL, p_namespace => NULL, p_task => NULL, p_from => NULL, p_to => NULL, p_limit => 200, p_offset => 0, p_tenant => '')$$, '22023', NULL, 'unknown status is 22023');

-- detail
SELECT is((SELECT queen.get_message((SELECT id FROM p1), 'a1', '') -> 'payload'), '{"n": 1}'::jsonb, 'detail: payload');
SELECT is((SELECT queen.get_message((SELECT id FROM p1), 'a1', '') ->> 'status'), 'completed', 'detail: status');
SELECT is((SELECT queen.get_message((SELECT id FROM p1), 'a1', '') -> 'consumerGroups'),
          '[{"name": "__QUEUE_MODE__", "consumed": true, "leaseExpiresAt": null}]'::jsonb, 'detail: consumer groups');
SELECT is(queen.get_message((SELECT id FROM p1), 'nope', ''), NULL, 'unknown message: null');
SELECT is(queen.get_message((SELECT id FROM p1), 'a1', 'other'), NULL, 'another tenant: null');

-- dead-letter and delete
SELECT ok(queen.dead_letter_message((SELECT id FROM p1), 'a2', '__QUEUE_MODE__', 'Moved to the DLQ by an operator', ''), 'moved to the DLQ');
SELECT is((SELECT queen.get_message((SELECT id FROM p1), 'a2', '') ->> 'status'), 'dead_letter', 'status dead_letter');
SELECT is((SELECT queen.get_message((SELECT id FROM p1), 'a2', '') ->> 'errorMessage'), 'Moved to the DLQ by an operator', 'error message');
SELECT ok(NOT queen.dead_letter_message((SELECT id FROM p1), 'nope', '__QUEUE_MODE__', 'Moved to the DLQ by an operator', ''), 'unknown message: false');
INSERT INTO queen.dedup_tombstones VALUES ((SELECT id FROM p1), 'a2', queen_internal.uuid_v7(), now() + interval '1 day');
SELECT ok(queen.delete_message((SELECT id FROM p1), 'a2', ''), 'delete: found');
SELECT is((SELECT count(*) FROM queen.dlq d WHERE d.partition_id = (SELECT id FROM p1) AND d.transaction_id = 'a2'), 0::bigint,
          'delete removes the DLQ entries');
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_ma_a", "partition": "p1", "transactionId": "a2"}]', NULL, '')), 'queued',
          'delete removes the dedup memory: the transactionId is accepted again');
SELECT ok(NOT queen.delete_message((SELECT id FROM p1), 'nope', ''), 'delete unknown: false');
SELECT ok(NOT queen.delete_message((SELECT id FROM p1), 'a1', 'other'), 'another tenant cannot delete');

-- partitions and clear
SELECT is((SELECT array_agg((p ->> 'name') || ':' || (p -> 'messages' ->> 'total') || '/' || (p -> 'messages' ->> 'pending'))
             FROM jsonb_array_elements(queen.list_partitions('t_ma_a', 1000, 0, '') -> 'partitions') p),
          ARRAY['p1:3/2', 'p2:1/1'], 'partitions with totals and pending');
SELECT is(queen.clear_queue('t_ma_a', 'p1', ''), 2::bigint, 'clear one partition');
SELECT is(queen.clear_queue('t_ma_a', NULL, ''), 1::bigint, 'clear the rest');

SELECT * FROM finish();
ROLLBACK;
