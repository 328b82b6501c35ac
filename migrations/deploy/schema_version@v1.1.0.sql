-- Deploy queen:schema_version to pg (release 1.1.0, a rework of schema_version@v1.0.0)
-- The release grows by metrics_snapshot and streams, which a 1.1.0 broker calls; schema_version() says so,
-- and a broker that needs 1.1.0 refuses a 1.0.0 schema at boot. CREATE OR REPLACE keeps the function's
-- owner and grants (queen_owner; EXECUTE for queen_broker, queen_reader, queen_admin).

BEGIN;

SET LOCAL ROLE queen_owner;

CREATE OR REPLACE FUNCTION queen.schema_version()
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$ SELECT '1.1.0'::text $function$;

RESET ROLE;

COMMIT;
