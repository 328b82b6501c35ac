CREATE OR REPLACE FUNCTION queen.status_analytics(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
  v_interval text := coalesce(p_params->>'interval', 'hour');
  v_minutes int;
  v_ids uuid[];
  v_series jsonb;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '24 hours');
  v_minutes := CASE v_interval WHEN 'minute' THEN 1 WHEN 'day' THEN 1440 ELSE 60 END;
  IF v_interval NOT IN ('minute', 'hour', 'day') THEN
    v_interval := 'hour';
  END IF;
  -- Bounded points: a too fine interval for the window is widened.
  v_minutes := greatest(v_minutes, w.bucket_minutes / 4, 1);
  WHILE extract(epoch FROM w.to_at - w.from_at) / 60 / v_minutes > 1500 LOOP
    v_minutes := v_minutes * 2;
  END LOOP;
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen_internal.stats_queues(p_tenant, p_params) q;
  v_series := queen_internal.stats_series(v_ids, w.from_at, w.to_at, v_minutes);
  RETURN jsonb_build_object(
    'timeRange', w.time_range,
    'from', queen_internal.iso_millis(w.from_at), 'to', queen_internal.iso_millis(w.to_at),
    'interval', v_interval, 'bucketMinutes', v_minutes,
    'dataPoints', (SELECT coalesce(jsonb_agg(e || jsonb_build_object('messages', e->'pushed')), '[]'::jsonb)
                     FROM jsonb_array_elements(v_series) e),
    'totals', (SELECT jsonb_build_object('pushed', coalesce(sum((e->>'pushed')::bigint), 0),
                                         'popped', coalesce(sum((e->>'popped')::bigint), 0),
                                         'acked', coalesce(sum((e->>'acked')::bigint), 0),
                                         'failed', coalesce(sum((e->>'failed')::bigint), 0))
                 FROM jsonb_array_elements(v_series) e));
END;
$function$;

COMMENT ON FUNCTION queen.status_analytics(p_tenant text, p_params jsonb) IS 'GET /api/v1/status/analytics (from default 24 h before to; queue, namespace, task; interval minute|hour|day, default hour, widened so that a response has at most 1500 points): dataPoints [{timestamp, messages (= pushed), pushed, popped, acked, failed, …}], totals.';
GRANT EXECUTE ON FUNCTION queen.status_analytics(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
