-- Revert queen:uuid_v7 from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen_internal.uuid_v7_ordinal(timestamptz, int);
DROP FUNCTION queen_internal.uuid_v7(timestamptz);
COMMIT;
