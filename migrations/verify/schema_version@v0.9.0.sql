-- Verify queen:schema_version on pg
BEGIN;
SELECT 1 / (queen.schema_version() ~ '^[0-9]+\.[0-9]+\.[0-9]+$')::int;
ROLLBACK;
