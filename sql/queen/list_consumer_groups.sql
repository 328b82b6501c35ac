CREATE OR REPLACE FUNCTION queen.list_consumer_groups(p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  WITH per_group AS (
    SELECT l.consumer_group, l.queue_id, l.queue_name,
           count(*) AS members,
           count(*) FILTER (WHERE l.offset_lag > 0) AS partitions_with_lag,
           sum(l.offset_lag) AS total_lag,
           max(queen_internal.lag_seconds(l.next_at, coalesce(p_now, now()))) AS max_time_lag,
           bool_or(l.total_consumed > 0 OR l.last_consumed_at IS NOT NULL) AS consumed
      FROM queen_internal.cursor_lags(p_tenant) l
     GROUP BY l.consumer_group, l.queue_id, l.queue_name
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'name', g.consumer_group,
           'queueName', g.queue_name,
           'topics', jsonb_build_array(g.queue_name),
           'members', g.members,
           'partitionsWithLag', g.partitions_with_lag,
           'totalLag', g.total_lag,
           'maxTimeLag', g.max_time_lag,
           'state', CASE WHEN NOT g.consumed THEN 'Dead' WHEN g.max_time_lag > 300 THEN 'Lagging' ELSE 'Stable' END,
           'subscriptionMode', coalesce(s.mode, 'all'),
           'subscriptionTimestamp', queen_internal.iso_millis(s.start_at),
           'subscriptionCreatedAt', queen_internal.iso_millis(s.created_at))
           ORDER BY g.consumer_group, g.queue_name), '[]'::jsonb)
    FROM per_group g
    LEFT JOIN LATERAL (SELECT s.mode, s.start_at, s.created_at FROM queen.subscriptions s
                        WHERE s.consumer_group = g.consumer_group AND s.queue_id = g.queue_id
                          AND s.partition_name = '' LIMIT 1) s ON true
$function$;

COMMENT ON FUNCTION queen.list_consumer_groups(p_tenant text, p_now timestamp with time zone) IS 'GET /api/v1/consumer-groups: one object per (group, queue) with cursor rows of tenant p_tenant (queue mode = __QUEUE_MODE__): members (cursor rows), partitionsWithLag, totalLag (sequence numbers), maxTimeLag (s, at p_now), state (Dead = never consumed, Lagging = maxTimeLag > 300 s, else Stable) and the queue-wide subscription record (mode all and null timestamps without one).';
GRANT EXECUTE ON FUNCTION queen.list_consumer_groups(p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker, queen_reader;
