CREATE OR REPLACE FUNCTION queen.refresh_stats(p_max_queues integer DEFAULT 100000, p_budget_ms integer DEFAULT 10000)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_started timestamptz := clock_timestamp();
  v_batch constant int := 10;
  v_refreshed int := 0;
  v_step int;
  v_complete boolean := false;
BEGIN
  PERFORM queen_internal.check_at_least('refresh_stats max queues', p_max_queues, 1);
  PERFORM queen_internal.check_at_least('refresh_stats budget ms', p_budget_ms, 1);
  IF NOT pg_try_advisory_xact_lock(queen_internal.stats_work_lock_key()) THEN
    RETURN jsonb_build_object('skipped', true, 'reason', 'another_instance_running');
  END IF;
  -- Stalest first in small batches, so the time budget bounds the call whatever the
  -- number of partitions: each batch only takes queues not refreshed since the call began.
  LOOP
    v_step := queen.reconcile_stats(least(v_batch, p_max_queues - v_refreshed),
                                    greatest(floor(extract(epoch FROM clock_timestamp() - v_started) * 1000), 0)::bigint);
    v_refreshed := v_refreshed + v_step;
    IF v_step < least(v_batch, p_max_queues - v_refreshed + v_step) THEN
      v_complete := true;
      EXIT;
    END IF;
    EXIT WHEN v_refreshed >= p_max_queues
           OR clock_timestamp() - v_started >= p_budget_ms * interval '1 millisecond';
  END LOOP;
  RETURN jsonb_build_object(
    'skipped', false,
    'queuesRefreshed', v_refreshed,
    'complete', v_complete,
    'durationMs', round(extract(epoch FROM clock_timestamp() - v_started) * 1000, 3));
END;
$function$;

COMMENT ON FUNCTION queen.refresh_stats(p_max_queues integer, p_budget_ms integer) IS 'POST /api/v1/stats/refresh: refreshes the statistics of every queue now, stalest first, in one transaction bounded by at most p_max_queues queues and about p_budget_ms of work (batches of 10 queues). {"skipped": true, "reason": "another_instance_running"} when a reconciler batch holds the statistics lock; otherwise {"skipped": false, "queuesRefreshed", "complete" (false: the budget ended first; call again), "durationMs"}. 22023 on max queues or budget < 1.';
GRANT EXECUTE ON FUNCTION queen.refresh_stats(p_max_queues integer, p_budget_ms integer) TO queen_admin, queen_broker;
