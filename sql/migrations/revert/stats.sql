-- Revert queen:stats from pg

BEGIN;

DROP FUNCTION queen.reconcile_stats(int, bigint, timestamptz);
DROP FUNCTION queen.compute_queue_stats(uuid, timestamptz);
DROP TABLE queen.queue_stats;

COMMIT;
