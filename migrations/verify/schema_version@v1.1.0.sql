-- Verify queen:schema_version on pg (release 1.1.0)
BEGIN;
SELECT 1 / (queen.schema_version() = '1.1.0')::int;
ROLLBACK;
