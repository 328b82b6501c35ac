-- Revert queen:schema_version from pg
BEGIN;
DROP FUNCTION queen.schema_version();
COMMIT;
