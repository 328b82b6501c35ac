CREATE OR REPLACE FUNCTION queen.analytics_retention(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN jsonb_build_object(
    'timeRange', w.time_range,
    'jobs', coalesce((SELECT jsonb_agg(jsonb_build_object('job', j.job, 'runs', j.runs) ORDER BY j.job)
                        FROM (SELECT r.job, jsonb_agg(jsonb_build_object(
                                       'timestamp', queen_internal.iso_millis(r.started_at), 'serverId', r.server_id,
                                       'rows', coalesce((r.result->>'rows')::bigint, 0),
                                       'complete', (r.result->>'complete')::boolean,
                                       'durationMs', round(extract(epoch FROM r.finished_at - r.started_at)::numeric * 1000, 3))
                                     ORDER BY r.started_at) AS runs
                                FROM queen.job_runs r
                               WHERE r.job IN ('retention', 'eviction', 'stats_reconcile')
                                 AND r.started_at >= w.from_at AND r.started_at <= w.to_at
                               GROUP BY r.job) j), '[]'::jsonb),
    'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
                 'queue', q.name, 'retentionEnabled', q.retention_enabled, 'retentionSeconds', q.retention_seconds,
                 'completedRetentionSeconds', q.completed_retention_seconds, 'ttl', q.ttl,
                 'maxWaitTimeSeconds', q.max_wait_time_seconds) ORDER BY q.name)
                          FROM queen_internal.stats_queues(p_tenant, p_params) q), '[]'::jsonb));
END;
$function$;

COMMENT ON FUNCTION queen.analytics_retention(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/retention (from/to default the last hour; queue filter): the runs of the retention, eviction and stats_reconcile jobs in the window (rows handled, duration, broker; cluster-wide) and the retention options of the tenant''s queues.';
GRANT EXECUTE ON FUNCTION queen.analytics_retention(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
