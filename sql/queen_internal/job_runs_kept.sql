CREATE OR REPLACE FUNCTION queen_internal.job_runs_kept()
 RETURNS integer
 LANGUAGE sql IMMUTABLE AS $function$ SELECT 1000 $function$;
