-- Revert queen:apply_retention from pg
BEGIN;
DROP FUNCTION queen.apply_retention(int, interval, timestamptz);
DROP FUNCTION queen.delete_partition_head(uuid, timestamptz, bigint, int, timestamptz);
COMMIT;
