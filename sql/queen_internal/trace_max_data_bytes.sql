CREATE OR REPLACE FUNCTION queen_internal.trace_max_data_bytes()
 RETURNS integer
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT 65536 $function$;

COMMENT ON FUNCTION queen_internal.trace_max_data_bytes() IS 'The largest trace data, as JSON text, in bytes: 64 KiB.';
