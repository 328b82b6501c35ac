CREATE OR REPLACE FUNCTION queen.schema_version()
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$ SELECT '2.0.0'::text $function$;

COMMENT ON FUNCTION queen.schema_version() IS 'The release of the deployed queen schema (major.minor.patch); brokers refuse to start against an older one than they need.';
GRANT EXECUTE ON FUNCTION queen.schema_version() TO queen_admin, queen_broker, queen_reader;
