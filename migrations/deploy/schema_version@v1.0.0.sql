-- Deploy queen:schema_version to pg (release 1.0.0, a rework of schema_version@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- schema_version@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.schema_version();

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen.schema_version()
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$ SELECT '1.0.0'::text $function$;
COMMENT ON FUNCTION queen.schema_version() IS
  'The release of the deployed queen schema (major.minor.patch); brokers refuse to start against an older one than they need.';

RESET ROLE;

COMMIT;
