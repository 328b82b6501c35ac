-- pgTAP: queen.metrics_snapshot (the queue figures of /metrics, docs/operations-metrics.md).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(8);

-- Only this test's queues, so the ranking below is exact.
DELETE FROM queen.queue_stats;
DELETE FROM queen.queues;

-- ms-deep: 5 messages, group g consumed 2 (cursor 2). ms-mid: 2 messages nobody consumes.
-- ms-low: 1 message.
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 'ms-deep', 'partition', 'p1', 'transactionId', 'd' || i)) FROM generate_series(1, 5) i)
  || (SELECT jsonb_agg(jsonb_build_object('queue', 'ms-mid', 'transactionId', 'm' || i)) FROM generate_series(1, 2) i)
  || jsonb_build_array(jsonb_build_object('queue', 'ms-low', 'transactionId', 'l1')), NULL, '');
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
SELECT p.id, 'g', p.queue_id, 2
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'ms-deep';
SELECT is(queen.reconcile_stats(10, 0), 3, 'statistics of the three queues');

SELECT is(jsonb_path_query_array(queen.metrics_snapshot(2), '$.queues[*].queue'), '["ms-deep", "ms-mid"]'::jsonb,
          'the p_max_queues deepest queues, deepest first');
SELECT is((queen.metrics_snapshot(2) -> 'queues' -> 0) - 'lagSeconds',
          '{"tenant": "", "queue": "ms-deep", "pending": 3, "leased": 0, "deadLetters": 0}'::jsonb,
          'a queue''s depth from its statistics: pending follows the slowest group');
SELECT is((queen.metrics_snapshot(2) -> 'other') - 'lagSeconds',
          '{"queues": 1, "pending": 1, "leased": 0, "deadLetters": 0}'::jsonb, 'the rest summed');
SELECT is((queen.metrics_snapshot(2) -> 'groups' -> 0) - 'lagSeconds',
          '{"tenant": "", "queue": "ms-deep", "group": "g", "lagMessages": 3}'::jsonb,
          'consumer lag per (queue, group) of the queues shown');
SELECT is((queen.metrics_snapshot(2, now() + interval '1 hour') -> 'groups' -> 0 ->> 'lagSeconds')::int >= 3599, true,
          'lag seconds: the age of the group''s oldest unconsumed message');
SELECT is(queen.metrics_snapshot(0) -> 'queues', '[]'::jsonb, 'zero queues: everything is summed');
SELECT throws_ok('SELECT queen.metrics_snapshot(-1)', '22023', NULL, 'a negative max queues is refused');

SELECT * FROM finish();
ROLLBACK;
