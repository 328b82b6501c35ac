-- Revert queen:stats from pg

BEGIN;

DROP FUNCTION queen.reconcile_stats(int, bigint);
DROP FUNCTION queen.compute_queue_stats(uuid);
DROP TABLE queen.queue_stats;

COMMIT;
