CREATE OR REPLACE FUNCTION queen.analytics_system_metrics(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
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
             (array_agg(b.port ORDER BY b.minute DESC))[1] AS port,
             count(*) AS samples, sum(b.requests) AS requests, sum(b.db_errors) AS db_errors,
             sum(b.cpu_user_us) AS cpu_user_us, sum(b.cpu_system_us) AS cpu_system_us,
             round(avg(b.rss_bytes)) AS rss_avg, max(b.rss_bytes) AS rss_max,
             max(b.pool_size) AS pool_size, round(avg(b.pool_in_use), 2) AS pool_in_use_avg,
             max(b.pool_in_use) AS pool_in_use_max, max(b.pool_waiting) AS pool_waiting_max
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
         AND (p_params->>'workerId' IS NULL OR b.server_id = p_params->>'workerId')
         AND (p_params->>'hostname' IS NULL OR b.hostname = p_params->>'hostname')
       GROUP BY 1, 2
    ), r AS (
      SELECT b.server_id, max(b.hostname) AS hostname, max(b.port) AS port,
             jsonb_agg(jsonb_build_object(
               'timestamp', queen_internal.iso_millis(b.bucket), 'sampleCount', b.samples,
               'metrics', jsonb_build_object(
                 'requests', b.requests, 'requestsPerSecond', round(b.requests / (w.bucket_minutes * 60.0), 3),
                 'dbErrors', b.db_errors,
                 'cpu', jsonb_build_object('userUs', b.cpu_user_us, 'systemUs', b.cpu_system_us,
                                           'percent', round((b.cpu_user_us + b.cpu_system_us) / (w.bucket_minutes * 600000.0), 2)),
                 'memory', jsonb_build_object('rssBytes', jsonb_build_object('avg', b.rss_avg, 'max', b.rss_max)),
                 'database', jsonb_build_object('poolSize', b.pool_size,
                                                'poolInUse', jsonb_build_object('avg', b.pool_in_use_avg, 'max', b.pool_in_use_max),
                                                'poolWaitingMax', b.pool_waiting_max)))
               ORDER BY b.bucket) AS series
        FROM b GROUP BY b.server_id
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('hostname', r.hostname, 'port', r.port,
                                                                'workerId', r.server_id, 'timeSeries', r.series)
                                             ORDER BY r.server_id) FROM r), '[]'::jsonb),
      'replicaCount', (SELECT count(*) FROM r),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$function$;

COMMENT ON FUNCTION queen.analytics_system_metrics(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/system-metrics (from/to default the last hour; hostname, workerId = server id filters): per broker, bucketed requests, database errors, CPU, memory and pool figures. Broker-wide figures (not per tenant).';
GRANT EXECUTE ON FUNCTION queen.analytics_system_metrics(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
