CREATE OR REPLACE FUNCTION queen.analytics_parked_replicas(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen_internal.stats_bucket(b.minute, w.bucket_minutes) AS bucket, max(b.parked_pops) AS parked
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
       GROUP BY 1, 2
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'series', r.series)
                                             ORDER BY r.server_id)
                              FROM (SELECT server_id, jsonb_agg(jsonb_build_object(
                                      'timestamp', queen_internal.iso_millis(bucket), 'parkedPops', parked) ORDER BY bucket) AS series
                                      FROM b GROUP BY server_id) r), '[]'::jsonb))
  );
END;
$function$;

COMMENT ON FUNCTION queen.analytics_parked_replicas(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/queue-parked-replicas: per broker, the most long polls parked at a flush in each bucket (brokers count parked pops as a whole, not per queue, so the queue filter does not apply).';
GRANT EXECUTE ON FUNCTION queen.analytics_parked_replicas(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
