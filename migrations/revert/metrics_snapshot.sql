-- Revert queen:metrics_snapshot from pg
BEGIN;
SET LOCAL ROLE queen_owner;
DROP FUNCTION queen.metrics_snapshot(int, timestamptz);
COMMIT;
