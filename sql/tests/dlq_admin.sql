-- pgTAP: queen.requeue_dead_letters, delete_dead_letters, retry_dead_message
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(15);

SELECT count(*) FROM queen.push_messages('[
  {"queue": "t_da_a", "transactionId": "a1", "payload": {"n": 1}, "traceId": "0195b7e2-0000-7000-8000-000000000001"},
  {"queue": "t_da_a", "transactionId": "a2"},
  {"queue": "t_da_a", "partition": "p2", "transactionId": "a3"}]', 'carol', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_da_a", "transactionId": "o1"}]', NULL, 'other');
CREATE TEMP TABLE dp AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                         WHERE q.name = 't_da_a' AND q.tenant = '' AND p.name = 'Default';
-- a1 dead for two groups (bus), a2 and a3 for queue mode, o1 in the other tenant
SELECT queen_internal.dead_letter(m.partition_id, m.seq, x.grp, 'boom', 3)
  FROM (VALUES ('a1', 'g1'), ('a1', 'g2'), ('a2', '__QUEUE_MODE__'), ('a3', '__QUEUE_MODE__'), ('o1', '__QUEUE_MODE__')) x(txid, grp)
  JOIN queen.stored_messages m ON m.transaction_id = x.txid
  JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_da_a';

SELECT throws_ok($$SELECT queen.requeue_dead_letters(NULL,NULL,NULL,NULL,NULL,NULL,'')$$, '22023', 'queue is required', 'queue or message id required');
SELECT is(queen.requeue_dead_letters('t_da_a', p_group => 'g1', p_partition => NULL, p_from => NULL, p_to => NULL, p_message_id => NULL, p_tenant => ''), '{"queues": ["t_da_a"], "requeued": 1}'::jsonb,
          'requeue one group''s entry');
SELECT is((SELECT row(m.payload, m.producer_sub, m.trace_id::text)::text FROM queen.stored_messages m
            WHERE m.partition_id = (SELECT id FROM dp) AND m.transaction_id LIKE 'a1~requeue~%'),
          '("{""n"": 1}",carol,0195b7e2-0000-7000-8000-000000000001)', 'the copy keeps payload, producer and trace id');
SELECT is((SELECT m.seq FROM queen.stored_messages m WHERE m.partition_id = (SELECT id FROM dp) AND m.transaction_id LIKE 'a1~requeue~%'),
          3::bigint, 'appended to its partition');
SELECT is((SELECT array_agg(consumer_group::text) FROM queen.dlq WHERE transaction_id = 'a1'), ARRAY['g2'], 'the other group''s entry stays');
SELECT is(queen.requeue_dead_letters('t_da_a', p_group => 'g2', p_partition => NULL, p_from => NULL, p_to => NULL, p_message_id => NULL, p_tenant => '') ->> 'requeued', '1', 'the other group''s entry');
SELECT is((SELECT count(*) FROM queen.stored_messages m WHERE m.partition_id = (SELECT id FROM dp) AND m.transaction_id LIKE 'a1~requeue~%'),
          1::bigint, 'one copy per dead message, whichever groups requeue it');
SELECT is(queen.requeue_dead_letters('t_da_a', p_partition => 'p2', p_group => NULL, p_from => NULL, p_to => NULL, p_message_id => NULL, p_tenant => '') ->> 'requeued', '1', 'partition filter');
SELECT is(queen.requeue_dead_letters('t_da_a', p_from => now() + interval '1 hour', p_group => NULL, p_partition => NULL, p_to => NULL, p_message_id => NULL, p_tenant => '') ->> 'requeued', '0', 'time filter');
SELECT is(queen.requeue_dead_letters('t_da_a', p_tenant => 'nobody', p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_message_id => NULL) ->> 'requeued', '0', 'another tenant sees nothing');

-- retry by message key
SELECT isnt(queen.retry_dead_message((SELECT id FROM dp), 'a2', '') ->> 'messageId', NULL, 'retry answers the new message id');
SELECT is(queen.retry_dead_message((SELECT id FROM dp), 'a2', ''), NULL, 'no DLQ entry left: null');

-- delete
SELECT queen_internal.dead_letter(m.partition_id, m.seq, 'g1', 'again', 0) FROM queen.stored_messages m
 WHERE m.partition_id = (SELECT id FROM dp);
SELECT is(queen.delete_dead_letters('t_da_a', p_message_id => (SELECT m.id FROM queen.stored_messages m WHERE m.partition_id = (SELECT id FROM dp) AND m.transaction_id = 'a1'), p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_tenant => ''),
          1, 'delete one message''s entries');
SELECT is(queen.delete_dead_letters('t_da_a', NULL, NULL, NULL, NULL, NULL, ''), 3, 'delete by queue');
SELECT is((SELECT count(*) FROM queen.dlq d JOIN queen.partitions p ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id
            WHERE q.name = 't_da_a' AND q.tenant = 'other'), 1::bigint, 'the other tenant''s entry stays');

SELECT * FROM finish();
ROLLBACK;
