-- pgTAP: queen.reconcile_stats / compute_queue_stats (the statistics reconciler).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(14);

-- Only this test's queues, so the limits below are exact.
DELETE FROM queen.queue_stats;
DELETE FROM queen.queues;

-- Queue A: partition p1 has 5 messages, p2 has 3. On p1 the queue-mode group
-- consumed 4 and has 1 leased; group g consumed 2. Nobody consumes p2.
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 'stats-a', 'partition', 'p1', 'transactionId', 'a' || i)) FROM generate_series(1, 5) i)
  || (SELECT jsonb_agg(jsonb_build_object('queue', 'stats-a', 'partition', 'p2', 'transactionId', 'b' || i)) FROM generate_series(1, 3) i), NULL, '');
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq, lease_id, lease_expires_at, lease_count, lease_acked)
SELECT p.id, '__QUEUE_MODE__', p.queue_id, 4, gen_random_uuid(), now() + interval '1 minute', 1, 0
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'stats-a' AND p.name = 'p1';
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq, lease_id, lease_expires_at, lease_count, lease_acked)
SELECT p.id, 'g', p.queue_id, 2, gen_random_uuid(), now() - interval '1 minute', 3, 0  -- an expired lease is not processing
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'stats-a' AND p.name = 'p1';
INSERT INTO queen.dlq (message_id, consumer_group, partition_id, seq, transaction_id, error_message, message_created_at)
SELECT m.id, 'g', m.partition_id, m.seq, m.transaction_id, 'boom', m.created_at
  FROM queen.stored_messages m
  JOIN queen.partitions p ON p.id = m.partition_id
  JOIN queen.queues q ON q.id = p.queue_id AND q.name = 'stats-a'
 WHERE m.transaction_id = 'a1';
-- Queue B: empty.
SELECT queen.configure_queue('stats-b', '', '', '{}', '');

SELECT is(queen.reconcile_stats(1), 1, 'a call refreshes at most p_limit queues');
SELECT is(queen.reconcile_stats(10, 60000), 1, 'the next call takes the queue that had no stats yet');
SELECT is(queen.reconcile_stats(10, 60000), 0, 'queues refreshed within p_max_age_ms are left alone');
SELECT is(queen.reconcile_stats(10, 0), 2, 'with no age limit every queue is refreshed again');

-- One computation per refreshed queue: a (f(x)).* expansion would call it once per column of queue_stats.
SET LOCAL track_functions = 'all';
SELECT is(queen.reconcile_stats(10, 0), 2, 'refreshed once more, with function calls counted');
SELECT is(pg_stat_get_xact_function_calls('queen_internal.compute_queue_stats'::regproc), 2::bigint,
          'compute_queue_stats ran once per refreshed queue');

SELECT results_eq(
  $$SELECT partitions, consumer_groups, total, pending, processing, completed, dead_letter
      FROM queen.queue_stats s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = 'stats-a'$$,
  $$VALUES (2, 2, 8::bigint, 6::bigint, 1::bigint, 2::bigint, 1::bigint)$$,
  'counters: 8 stored; pending follows the slowest group (p1: 5-2) plus the unconsumed p2 (3); 1 leased; 1 dead letter');
SELECT ok((SELECT newest_message_at = (SELECT max(last_message_at) FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                                         WHERE q.name = 'stats-a')
             FROM queen.queue_stats s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = 'stats-a'),
          'newest_message_at is the newest partition activity');
SELECT results_eq(
  $$SELECT partitions, consumer_groups, total, pending, processing, completed, dead_letter
      FROM queen.queue_stats s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = 'stats-b'$$,
  $$VALUES (1, 0, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
  'an empty queue has zero counters (its Default partition counted)');

-- The refresh follows the data.
UPDATE queen.consumers c SET cursor_seq = 5
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.name = 'stats-a'
 WHERE c.partition_id = p.id AND c.consumer_group = 'g';
SELECT is(queen.reconcile_stats(10, 0), 2, 'refresh again');
SELECT is((SELECT pending FROM queen.queue_stats s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = 'stats-a'),
          4::bigint, 'the slowest group is now the queue mode (cursor 4): p1 1 + p2 3');

SELECT queen.configure_queue('stats-c', '', '', '{}', '');
DELETE FROM queen.queues WHERE name = 'stats-a';
SELECT is((SELECT count(*)::int FROM queen.queue_stats), 1, 'deleting a queue deletes its stats');

SELECT throws_ok($$SELECT queen.reconcile_stats(0)$$, '22023', NULL, 'a limit below 1 is rejected');
SELECT throws_ok($$SELECT queen.reconcile_stats(10, -1)$$, '22023', NULL, 'a negative age is rejected');

SELECT * FROM finish();
ROLLBACK;
