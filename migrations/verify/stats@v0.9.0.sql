-- Verify queen:stats on pg

BEGIN;

SELECT queue_id, partitions, consumer_groups, total, pending, processing, completed, dead_letter, newest_message_at,
       updated_at, consumed, oldest_pending_at
  FROM queen.queue_stats WHERE false;
SELECT queue_id, minute, pushed, popped, acked, dead_lettered, pending, processing, dead_letter, lag_seconds
  FROM queen.queue_stats_minutes WHERE false;
SELECT server_id, minute, requests, pool_in_use, lanes FROM queen.broker_stats_minutes WHERE false;
SELECT has_function_privilege('queen.compute_queue_stats(uuid, timestamptz)', 'execute');
SELECT has_function_privilege('queen.reconcile_stats(int, bigint, timestamptz)', 'execute');
SELECT has_function_privilege('queen.prune_stats_history(int, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen.record_broker_minute(text, jsonb, timestamptz)', 'execute');
SELECT has_function_privilege('queen.refresh_stats(int, int)', 'execute');

ROLLBACK;
