CREATE OR REPLACE FUNCTION queen_internal.job_lock_key(p_job text)
 RETURNS bigint
 LANGUAGE sql IMMUTABLE STRICT AS $function$
  SELECT hashtextextended('queen.job:' || p_job, 0)
$function$;

COMMENT ON FUNCTION queen_internal.job_lock_key(p_job text) IS 'The pg_advisory_xact_lock key electing the runner of job p_job.';
