-- Revert queen:metrics_snapshot from pg
-- (queen_internal stays: other changes put their helpers there.)
BEGIN;
DROP FUNCTION queen.metrics_snapshot(int, timestamptz);
COMMIT;
