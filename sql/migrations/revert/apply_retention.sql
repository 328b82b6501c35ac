-- Revert queen:apply_retention from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.apply_retention(int, interval, timestamptz);
DROP FUNCTION queen_internal.delete_partition_head(uuid, timestamptz, bigint, int, timestamptz);
COMMIT;
