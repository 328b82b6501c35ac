-- Revert queen:schema_version from pg (back to schema_version@v1.0.0: release 1.0.0, same owner and grants)

BEGIN;

SET LOCAL ROLE queen_owner;

CREATE OR REPLACE FUNCTION queen.schema_version()
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$ SELECT '1.0.0'::text $function$;

RESET ROLE;

COMMIT;
