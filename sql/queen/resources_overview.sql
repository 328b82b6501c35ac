CREATE OR REPLACE FUNCTION queen.resources_overview(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  WITH q AS (SELECT * FROM queen_internal.stats_queues(p_tenant, '{}')),
  s AS (SELECT s.*, extract(epoch FROM clock_timestamp() - s.oldest_pending_at) AS lag_s
          FROM queen.queue_stats s JOIN q ON q.id = s.queue_id),
  recent AS (
    SELECT coalesce(sum(h.pushed), 0) AS pushed, coalesce(sum(h.acked), 0) AS acked
      FROM queen.queue_stats_minutes h JOIN q ON q.id = h.queue_id
     WHERE h.minute >= date_trunc('minute', clock_timestamp()) - interval '5 minutes'
  )
  SELECT jsonb_build_object(
    'queues', (SELECT count(*) FROM q),
    'partitions', (SELECT coalesce(sum(partitions), 0) FROM s),
    'namespaces', (SELECT count(DISTINCT namespace) FROM q WHERE namespace <> ''),
    'tasks', (SELECT count(DISTINCT task) FROM q WHERE task <> ''),
    'messages', (SELECT queen_internal.stats_counters(sum(total), sum(pending), sum(processing), sum(completed),
                                             sum(dead_letter))::jsonb FROM s),
    'lag', jsonb_build_object(
      'time', (SELECT jsonb_build_object(
                 'avg', round(coalesce(avg(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'median', round(coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce(lag_s, 0)), 0)::numeric, 3),
                 'min', round(coalesce(min(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'max', round(coalesce(max(coalesce(lag_s, 0)), 0)::numeric, 3)) FROM s),
      'offset', (SELECT jsonb_build_object(
                   'avg', round(coalesce(avg(pending), 0), 3),
                   'median', coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY pending), 0),
                   'min', coalesce(min(pending), 0), 'max', coalesce(max(pending), 0)) FROM s)),
    'throughput', (SELECT jsonb_build_object('ingestedPerSecond', round(pushed / 300.0, 3),
                                             'processedPerSecond', round(acked / 300.0, 3)) FROM recent),
    'timestamp', queen_internal.iso_millis(clock_timestamp()),
    'statsAge', (SELECT queen_internal.stats_age_seconds(min(updated_at)) FROM s))
$function$;

COMMENT ON FUNCTION queen.resources_overview(p_tenant text, p_params jsonb) IS 'GET /api/v1/resources/overview for tenant p_tenant: counts of queues, partitions, namespaces and tasks, message counters, lag (time in seconds, offset in messages) over queues, throughput of the last 5 minutes, timestamp and statsAge (seconds since the stalest refresh).';
GRANT EXECUTE ON FUNCTION queen.resources_overview(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
