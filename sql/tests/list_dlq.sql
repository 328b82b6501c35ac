-- pgTAP: queen.list_dlq
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(13);

SELECT count(*) FROM queen.push_messages('[
  {"queue": "t_dlq_a", "transactionId": "a1", "payload": {"n": 1}},
  {"queue": "t_dlq_a", "transactionId": "a2"},
  {"queue": "t_dlq_a", "partition": "p2", "transactionId": "a3"},
  {"queue": "t_dlq_b", "transactionId": "b1"}]', 'carol', '');
-- dead letters with controlled failure times: a1 (g1, oldest) ... b1 (g1, newest)
SELECT queen_internal.dead_letter(m.partition_id, m.seq, x.grp, x.err, x.retries)
  FROM (VALUES ('a1', 'g1', 'boom', 2), ('a1', 'g2', 'Retries exhausted', 3), ('a2', 'g1', 'bad', 0), ('a3', 'g1', 'p2 failed', 1), ('b1', 'g1', 'other queue', 0)) x(txid, grp, err, retries)
  JOIN queen.stored_messages m ON m.transaction_id = x.txid
  JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id AND q.name IN ('t_dlq_a', 't_dlq_b');
UPDATE queen.dlq d SET failed_at = now() - x.ago
  FROM (VALUES ('a1', 'g1', interval '5 minutes'), ('a1', 'g2', interval '4 minutes'), ('a2', 'g1', interval '3 minutes'),
               ('a3', 'g1', interval '2 minutes'), ('b1', 'g1', interval '1 minute')) x(txid, grp, ago)
 WHERE d.transaction_id = x.txid AND d.consumer_group = x.grp
   AND d.partition_id IN (SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name IN ('t_dlq_a', 't_dlq_b'));

SELECT is((SELECT array_agg(transaction_id || '/' || consumer_group) FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 100, 0, '')),
          ARRAY['a3/g1', 'a2/g1', 'a1/g2', 'a1/g1'], 'one queue, newest failure first');
SELECT is((SELECT DISTINCT total FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 100, 0, '')), 4::bigint, 'total = matching entries');
SELECT is((SELECT row(queue_name, partition_name, error_message, retry_count, payload, producer_sub, is_encrypted)::text
             FROM queen.list_dlq('t_dlq_a', 'g1', NULL, NULL, NULL, 100, 0, '') WHERE transaction_id = 'a1'),
          '(t_dlq_a,Default,boom,2,"{""n"": 1}",carol,f)', 'entry fields: names, error, retries, payload copy, producer');
SELECT is((SELECT created_at FROM queen.list_dlq('t_dlq_a', 'g1', NULL, NULL, NULL, 100, 0, '') WHERE transaction_id = 'a1'),
          (SELECT m.created_at FROM queen.stored_messages m JOIN queen.list_dlq('t_dlq_a', 'g1', NULL, NULL, NULL, 100, 0, '') d ON d.message_id = m.id WHERE d.transaction_id = 'a1'),
          'created_at is the message''s');
SELECT is((SELECT array_agg(transaction_id) FROM queen.list_dlq('t_dlq_a', 'g2', NULL, NULL, NULL, 100, 0, '')), ARRAY['a1'], 'filter by group');
SELECT is((SELECT array_agg(transaction_id) FROM queen.list_dlq('t_dlq_a', NULL, 'p2', NULL, NULL, 100, 0, '')), ARRAY['a3'], 'filter by partition');
SELECT is((SELECT array_agg(transaction_id || '/' || consumer_group) FROM queen.list_dlq('t_dlq_a', NULL, NULL, now() - interval '210 seconds', now() - interval '90 seconds', 100, 0, '')),
          ARRAY['a3/g1', 'a2/g1'], 'filter by failure time window');
SELECT is((SELECT count(*) FROM queen.list_dlq(NULL, 'g1', NULL, NULL, NULL, 1000, 0, '') WHERE queue_name IN ('t_dlq_a', 't_dlq_b')), 4::bigint, 'no queue filter spans queues');
SELECT is((SELECT array_agg(transaction_id || '/' || total) FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 2, 1, '')), ARRAY['a2/4', 'a1/4'],
          'limit/offset page the list; total is counted before paging');
SELECT is((SELECT count(*) FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 10, 4, '')), 0::bigint, 'an offset past the end returns no rows');
SELECT is((SELECT count(*) FROM queen.list_dlq('t_nope', NULL, NULL, NULL, NULL, 100, 0, '')), 0::bigint, 'unknown queue: nothing');
SELECT throws_ok($$SELECT * FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 0, 0, '')$$, '22023', NULL, 'limit < 1 is 22023');
SELECT throws_ok($$SELECT * FROM queen.list_dlq('t_dlq_a', NULL, NULL, NULL, NULL, 1, -1, '')$$, '22023', NULL, 'offset < 0 is 22023');

SELECT * FROM finish();
ROLLBACK;
