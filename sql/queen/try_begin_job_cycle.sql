CREATE OR REPLACE FUNCTION queen.try_begin_job_cycle(p_job text, p_cycle_ms bigint, p_server_id text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_cycle bigint;
BEGIN
  IF p_job IS NULL OR p_job = '' THEN
    RAISE EXCEPTION 'job name is required' USING ERRCODE = '22023';
  END IF;
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  v_cycle := queen_internal.job_cycle(p_cycle_ms, coalesce(p_now, clock_timestamp()));

  -- Cheap early exit for the common case: another broker already ran this cycle.
  IF EXISTS (SELECT 1 FROM queen.job_runs r WHERE r.job = p_job AND r.cycle = v_cycle) THEN
    RETURN false;
  END IF;
  -- Another broker is deciding this very moment: skip, it will win or it already did.
  IF NOT pg_try_advisory_xact_lock(queen_internal.job_lock_key(p_job)) THEN
    RETURN false;
  END IF;

  INSERT INTO queen.job_runs (job, cycle, server_id, started_at)
  VALUES (p_job, v_cycle, p_server_id, coalesce(p_now, clock_timestamp()))
  ON CONFLICT (job, cycle) DO NOTHING;
  IF NOT FOUND THEN
    RETURN false;
  END IF;

  DELETE FROM queen.job_runs r
   WHERE r.job = p_job AND r.cycle <= v_cycle - queen_internal.job_runs_kept();
  RETURN true;
END;
$function$;

COMMENT ON FUNCTION queen.try_begin_job_cycle(p_job text, p_cycle_ms bigint, p_server_id text, p_now timestamp with time zone) IS 'Elects the broker that runs the current cycle of p_job (cycle = floor(epoch_ms / p_cycle_ms) of p_now, null = clock_timestamp()): true to exactly one caller per cycle cluster-wide, false to every other caller and to later callers in the same cycle. Records the run in queen.job_runs. 22023 on an empty job or server id or p_cycle_ms < 1.';
GRANT EXECUTE ON FUNCTION queen.try_begin_job_cycle(p_job text, p_cycle_ms bigint, p_server_id text, p_now timestamp with time zone) TO queen_admin, queen_broker;
