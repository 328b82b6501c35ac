-- Deploy queen:schema_version to pg
-- queen.schema_version(): the release of the deployed schema. A broker reads it
-- at boot and refuses to start against a release older than the one it needs
-- (src/db/boot_check.cpp). Each release changes the literal through a new
-- change or `sqitch rework` (docs/procedures.md, "Schema version").
BEGIN;
CREATE FUNCTION queen.schema_version() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT '1.0.0'::text $$;
COMMENT ON FUNCTION queen.schema_version() IS
  'The release of the deployed queen schema (major.minor.patch); brokers refuse to start against an older one than they need.';
COMMIT;
