-- Revert queen:jobs from pg (back to jobs@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.job_lock_key(text),
  queen_internal.job_cycle(bigint,timestamp with time zone),
  queen_internal.job_runs_kept(),
  queen.try_begin_job_cycle(text,bigint,text,timestamp with time zone),
  queen.finish_job_cycle(text,text,jsonb);

CREATE OR REPLACE FUNCTION queen.job_lock_key(p_job text)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  SELECT hashtextextended('queen.job:' || p_job, 0)
$function$;
COMMENT ON FUNCTION queen.job_lock_key(text) IS
  'The pg_advisory_xact_lock key electing the runner of job p_job.';

CREATE OR REPLACE FUNCTION queen.job_cycle(p_cycle_ms bigint, p_at timestamp with time zone DEFAULT clock_timestamp())
 RETURNS bigint
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  PERFORM queen.check_at_least('cycle length ms', p_cycle_ms, 1);
  RETURN floor(extract(epoch FROM p_at) * 1000 / p_cycle_ms)::bigint;
END;
$function$;
COMMENT ON FUNCTION queen.job_cycle(bigint,timestamp with time zone) IS
  'The cycle number containing p_at for a job of period p_cycle_ms: floor(epoch_ms / p_cycle_ms). 22023 when p_cycle_ms < 1.';

CREATE OR REPLACE FUNCTION queen.job_runs_kept()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$ SELECT 1000 $function$;

CREATE OR REPLACE FUNCTION queen.try_begin_job_cycle(p_job text, p_cycle_ms bigint, p_server_id text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_cycle bigint;
BEGIN
  IF p_job IS NULL OR p_job = '' THEN
    RAISE EXCEPTION 'job name is required' USING ERRCODE = '22023';
  END IF;
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  v_cycle := queen.job_cycle(p_cycle_ms, coalesce(p_now, clock_timestamp()));

  -- Cheap early exit for the common case: another broker already ran this cycle.
  IF EXISTS (SELECT 1 FROM queen.job_runs r WHERE r.job = p_job AND r.cycle = v_cycle) THEN
    RETURN false;
  END IF;
  -- Another broker is deciding this very moment: skip, it will win or it already did.
  IF NOT pg_try_advisory_xact_lock(queen.job_lock_key(p_job)) THEN
    RETURN false;
  END IF;

  INSERT INTO queen.job_runs (job, cycle, server_id, started_at)
  VALUES (p_job, v_cycle, p_server_id, coalesce(p_now, clock_timestamp()))
  ON CONFLICT (job, cycle) DO NOTHING;
  IF NOT FOUND THEN
    RETURN false;
  END IF;

  DELETE FROM queen.job_runs r
   WHERE r.job = p_job AND r.cycle <= v_cycle - queen.job_runs_kept();
  RETURN true;
END;
$function$;
COMMENT ON FUNCTION queen.try_begin_job_cycle(text,bigint,text,timestamp with time zone) IS
  'Elects the broker that runs the current cycle of p_job (cycle = floor(epoch_ms / p_cycle_ms) of p_now, null = clock_timestamp()): true to exactly one caller per cycle cluster-wide, false to every other caller and to later callers in the same cycle. Records the run in queen.job_runs. 22023 on an empty job or server id or p_cycle_ms < 1.';

CREATE OR REPLACE FUNCTION queen.finish_job_cycle(p_job text, p_server_id text, p_result jsonb DEFAULT NULL::jsonb)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
COMMENT ON FUNCTION queen.finish_job_cycle(text,text,jsonb) IS
  'Marks the newest run of p_job by p_server_id as finished with a result summary (informational: the election does not depend on it). False when that run does not exist or is already finished.';

COMMIT;
