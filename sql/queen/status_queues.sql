CREATE OR REPLACE FUNCTION queen.status_queues(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
  v_limit int := coalesce((p_params->>'limit')::int, 100);
  v_offset int := coalesce((p_params->>'offset')::int, 0);
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH q AS (SELECT * FROM queen_internal.stats_queues(p_tenant, p_params - 'queue')),
    page AS (SELECT q.*, s.partitions AS n_partitions, s.total, s.pending, s.processing, s.completed,
                    s.dead_letter, s.consumer_groups, s.oldest_pending_at, s.updated_at AS stats_at
               FROM q LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
              ORDER BY q.name LIMIT v_limit OFFSET v_offset),
    moved AS (SELECT h.queue_id, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
                     sum(h.dead_lettered) AS failed
                FROM queen.queue_stats_minutes h
               WHERE h.queue_id IN (SELECT id FROM page) AND h.minute >= date_trunc('minute', w.from_at)
                 AND h.minute <= w.to_at
               GROUP BY h.queue_id)
    SELECT jsonb_build_object(
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
          'id', p.id, 'name', p.name, 'namespace', nullif(p.namespace, ''), 'task', nullif(p.task, ''),
          'createdAt', queen_internal.iso_millis(p.created_at),
          'partitions', coalesce(p.n_partitions, 0), 'consumerGroups', coalesce(p.consumer_groups, 0),
          'messages', queen_internal.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
          'throughput', jsonb_build_object('pushed', coalesce(m.pushed, 0), 'popped', coalesce(m.popped, 0),
                                           'acked', coalesce(m.acked, 0), 'failed', coalesce(m.failed, 0)),
          'lag', jsonb_build_object(
              'offset', coalesce(p.pending, 0),
              'timeSeconds', round(coalesce(greatest(extract(epoch FROM clock_timestamp() - p.oldest_pending_at), 0), 0)::numeric, 3)),
          'statsAge', queen_internal.stats_age_seconds(p.stats_at)) ORDER BY p.name)
          FROM page p LEFT JOIN moved m ON m.queue_id = p.id), '[]'::jsonb),
      'timeRange', w.time_range,
      'pagination', jsonb_build_object('limit', v_limit, 'offset', v_offset, 'total', (SELECT count(*) FROM q)))
  );
END;
$function$;

COMMENT ON FUNCTION queen.status_queues(p_tenant text, p_params jsonb) IS 'GET /api/v1/status/queues: the tenant''s queues (namespace, task filters) by name, paged by limit (100) and offset, with counters, throughput in the window (default the last hour), lag and statsAge; pagination {limit, offset, total}.';
GRANT EXECUTE ON FUNCTION queen.status_queues(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
