-- Verify queen:metrics_snapshot on pg
BEGIN;
SELECT 1 / (queen.metrics_snapshot(0) ? 'other')::int;
ROLLBACK;
