CREATE OR REPLACE FUNCTION queen_internal.trace_max_names()
 RETURNS integer
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT 16 $function$;

COMMENT ON FUNCTION queen_internal.trace_max_names() IS 'The most trace names one trace may carry: 16.';
