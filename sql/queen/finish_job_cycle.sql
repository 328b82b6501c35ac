CREATE OR REPLACE FUNCTION queen.finish_job_cycle(p_job text, p_server_id text, p_result jsonb DEFAULT NULL::jsonb)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
BEGIN
  -- The run being finished is this broker's newest run of the job; it may finish
  -- in a later cycle than the one it started in, so the cycle is not recomputed.
  UPDATE queen.job_runs r
     SET finished_at = clock_timestamp(), result = p_result
   WHERE r.job = p_job
     AND r.finished_at IS NULL
     AND r.cycle = (SELECT max(r2.cycle) FROM queen.job_runs r2
                     WHERE r2.job = p_job AND r2.server_id = p_server_id)
     AND r.server_id = p_server_id;
  RETURN FOUND;
END;
$function$;

COMMENT ON FUNCTION queen.finish_job_cycle(p_job text, p_server_id text, p_result jsonb) IS 'Marks the newest run of p_job by p_server_id as finished with a result summary (informational: the election does not depend on it). False when that run does not exist or is already finished.';
GRANT EXECUTE ON FUNCTION queen.finish_job_cycle(p_job text, p_server_id text, p_result jsonb) TO queen_admin, queen_broker;
