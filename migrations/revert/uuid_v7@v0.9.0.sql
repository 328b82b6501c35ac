-- Revert queen:uuid_v7 from pg
BEGIN;
DROP FUNCTION queen.uuid_v7_ordinal(timestamptz, int);
DROP FUNCTION queen.uuid_v7(timestamptz);
COMMIT;
