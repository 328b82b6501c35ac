-- Deploy queen:jobs to pg
-- Single-runner jobs: each cycle of a periodic job (retention, eviction, the
-- statistics reconciler) runs on exactly one broker. The election is a
-- transaction-scoped advisory lock plus a row per (job, cycle): the lock
-- serializes the brokers that try at the same instant, and the row makes a cycle
-- that already ran unrunnable for a broker that arrives later in the same cycle.

BEGIN;

CREATE TABLE queen.job_runs (
  job         text        NOT NULL,
  cycle       bigint      NOT NULL,
  server_id   text        NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz,
  result      jsonb,
  PRIMARY KEY (job, cycle)
);
COMMENT ON TABLE queen.job_runs IS
  'One row per executed cycle of a single-runner job: which broker ran it, when, and its result summary. cycle = floor(epoch_ms / cycle_ms).';

-- The advisory lock key of a job: stable across brokers, releases and restarts
-- (hashtext is stable for a given PostgreSQL major version, which all brokers share
-- because they share the database). The prefix keeps it apart from other users of
-- advisory locks in the same database.
CREATE FUNCTION queen.job_lock_key(p_job text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT hashtextextended('queen.job:' || p_job, 0)
$$;
COMMENT ON FUNCTION queen.job_lock_key(text) IS
  'The pg_advisory_xact_lock key electing the runner of job p_job.';

CREATE FUNCTION queen.job_cycle(p_cycle_ms bigint, p_at timestamptz DEFAULT clock_timestamp())
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM queen.check_at_least('cycle length ms', p_cycle_ms, 1);
  RETURN floor(extract(epoch FROM p_at) * 1000 / p_cycle_ms)::bigint;
END;
$$;
COMMENT ON FUNCTION queen.job_cycle(bigint, timestamptz) IS
  'The cycle number containing p_at for a job of period p_cycle_ms: floor(epoch_ms / p_cycle_ms). 22023 when p_cycle_ms < 1.';

-- How many past cycles of a job are kept in queen.job_runs: enough for a DBA (and
-- the HA tests) to see who ran what, bounded so the table never grows without end.
CREATE FUNCTION queen.job_runs_kept() RETURNS int
LANGUAGE sql IMMUTABLE AS $$ SELECT 1000 $$;

CREATE FUNCTION queen.try_begin_job_cycle(p_job text, p_cycle_ms bigint, p_server_id text,
                                          p_now timestamptz DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql AS $$
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
$$;
COMMENT ON FUNCTION queen.try_begin_job_cycle(text, bigint, text, timestamptz) IS
  'Elects the broker that runs the current cycle of p_job (cycle = floor(epoch_ms / p_cycle_ms) of p_now, null = clock_timestamp()): true to exactly one caller per cycle cluster-wide, false to every other caller and to later callers in the same cycle. Records the run in queen.job_runs. 22023 on an empty job or server id or p_cycle_ms < 1.';

CREATE FUNCTION queen.finish_job_cycle(p_job text, p_server_id text, p_result jsonb DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql AS $$
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
$$;
COMMENT ON FUNCTION queen.finish_job_cycle(text, text, jsonb) IS
  'Marks the newest run of p_job by p_server_id as finished with a result summary (informational: the election does not depend on it). False when that run does not exist or is already finished.';

COMMIT;
