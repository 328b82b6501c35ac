-- pgTAP: queen.delete_queue
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(9);

SELECT count(*) FROM queen.push_messages('[{"queue": "t_del", "transactionId": "d1"}, {"queue": "t_del", "partition": "p2", "transactionId": "d2"}, {"queue": "t_keep", "transactionId": "k1"}]', NULL, '');
CREATE TEMP TABLE ids AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_del';
SELECT count(*) FROM queen.pop_messages('t_del', NULL, 'g', 10, 2, false, 'new', NULL, NULL, NULL, '');
SELECT queen_internal.dead_letter(m.partition_id, m.seq, 'g', 'x', 0) FROM queen.stored_messages m WHERE m.partition_id IN (SELECT id FROM ids);
INSERT INTO queen.dedup_tombstones SELECT id, 'gone', gen_random_uuid(), now() + interval '1 hour' FROM ids;
INSERT INTO queen.subscriptions (consumer_group, queue_id, mode, start_at) SELECT 'g2', id, 'new', now() FROM queen.queues WHERE name = 't_del';

SELECT is(queen.delete_queue('t_del', ''), true, 'an existing queue is deleted');
SELECT is((SELECT count(*) FROM queen.queues WHERE name = 't_del'), 0::bigint, 'queue row gone');
SELECT is((SELECT count(*) FROM queen.partitions WHERE id IN (SELECT id FROM ids)), 0::bigint, 'partitions gone');
SELECT is((SELECT count(*) FROM queen.stored_messages WHERE partition_id IN (SELECT id FROM ids)), 0::bigint, 'messages gone');
SELECT is((SELECT count(*) FROM queen.consumers WHERE partition_id IN (SELECT id FROM ids))
        + (SELECT count(*) FROM queen.dlq WHERE partition_id IN (SELECT id FROM ids))
        + (SELECT count(*) FROM queen.dedup_tombstones WHERE partition_id IN (SELECT id FROM ids)), 0::bigint, 'cursors, dead letters and tombstones gone');
SELECT is((SELECT count(*) FROM queen.subscriptions WHERE consumer_group IN ('g', 'g2') AND queue_id NOT IN (SELECT id FROM queen.queues)), 0::bigint,
          'subscription records gone');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_keep'),
          1::bigint, 'other queues untouched');
SELECT is(queen.delete_queue('t_del', ''), false, 'an unknown queue: false');
SELECT throws_ok($$SELECT queen.delete_queue('', '')$$, '22023', NULL, 'a missing name is 22023');

SELECT * FROM finish();
ROLLBACK;
