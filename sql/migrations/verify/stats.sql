-- Verify queen:stats on pg

BEGIN;

SELECT queue_id, partitions, consumer_groups, total, pending, processing, completed, dead_letter, newest_message_at,
       updated_at
  FROM queen.queue_stats WHERE false;
SELECT has_function_privilege('queen.compute_queue_stats(uuid, timestamptz)', 'execute');
SELECT has_function_privilege('queen.reconcile_stats(int, bigint, timestamptz)', 'execute');

ROLLBACK;
