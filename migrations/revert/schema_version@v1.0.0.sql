-- Revert queen:schema_version from pg (back to schema_version@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.schema_version();

CREATE OR REPLACE FUNCTION queen.schema_version()
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT '1.0.0'::text $function$;
COMMENT ON FUNCTION queen.schema_version() IS
  'The release of the deployed queen schema (major.minor.patch); brokers refuse to start against an older one than they need.';

COMMIT;
