-- Revert queen:stats from pg

BEGIN;

DROP FUNCTION queen.refresh_stats(int, int);
DROP FUNCTION queen.record_broker_minute(text, jsonb, timestamptz);
DROP FUNCTION queen.prune_stats_history(int, int, timestamptz);
DROP FUNCTION queen.reconcile_stats(int, bigint, timestamptz);
DROP FUNCTION queen.stats_work_lock_key();
DROP TABLE queen.broker_stats_minutes;
DROP TABLE queen.queue_stats_minutes;
DROP FUNCTION queen.compute_queue_stats(uuid, timestamptz);
DROP TABLE queen.queue_stats;

COMMIT;
