CREATE OR REPLACE FUNCTION queen_internal.dlq_admin_max_per_call()
 RETURNS integer
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT 1000 $function$;

COMMENT ON FUNCTION queen_internal.dlq_admin_max_per_call() IS 'The most DLQ entries one requeue or delete call handles: 1000.';
