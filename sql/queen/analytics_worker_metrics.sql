CREATE OR REPLACE FUNCTION queen.analytics_worker_metrics(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen_internal.stats_bucket(b.minute, w.bucket_minutes) AS bucket,
             (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
             sum(b.push_requests) AS push_requests, sum(b.push_messages) AS push_messages,
             sum(b.pop_requests) AS pop_requests, sum(b.pop_messages) AS pop_messages,
             sum(b.ack_messages) AS ack_messages, sum(b.ack_failed) AS ack_failed,
             max(b.parked_pops) AS parked_pops, (array_agg(b.lanes ORDER BY b.minute DESC))[1] AS lanes
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
         AND (p_params->>'workerId' IS NULL OR b.server_id = p_params->>'workerId')
         AND (p_params->>'hostname' IS NULL OR b.hostname = p_params->>'hostname')
       GROUP BY 1, 2
    ), r AS (
      SELECT b.server_id, max(b.hostname) AS hostname,
             jsonb_agg(jsonb_build_object(
               'timestamp', queen_internal.iso_millis(b.bucket),
               'pushRequests', b.push_requests, 'pushMessages', b.push_messages,
               'popRequests', b.pop_requests, 'popMessages', b.pop_messages,
               'ackMessages', b.ack_messages, 'ackFailed', b.ack_failed,
               'batchEfficiency', CASE WHEN b.push_requests > 0 THEN round(b.push_messages::numeric / b.push_requests, 3) ELSE 0 END,
               'parkedPopsMax', b.parked_pops, 'lanes', b.lanes) ORDER BY b.bucket) AS series
        FROM b GROUP BY b.server_id
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'workers', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'hostname', r.hostname,
                                                               'timeSeries', r.series) ORDER BY r.server_id) FROM r),
                          '[]'::jsonb),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$function$;

COMMENT ON FUNCTION queen.analytics_worker_metrics(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/worker-metrics (from/to default the last hour; hostname, workerId filters): per broker, bucketed push/pop/ack request and message counts, batch efficiency, parked pops and admission lanes. Broker-wide figures.';
GRANT EXECUTE ON FUNCTION queen.analytics_worker_metrics(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
