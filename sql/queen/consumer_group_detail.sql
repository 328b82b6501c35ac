CREATE OR REPLACE FUNCTION queen.consumer_group_detail(p_group text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT coalesce(jsonb_object_agg(x.queue_name, jsonb_build_object('partitions', x.partitions)), '{}'::jsonb)
    FROM (SELECT l.queue_name,
                 jsonb_agg(jsonb_build_object(
                   'partition', l.partition_name,
                   'workerId', CASE WHEN l.lease_expires_at > coalesce(p_now, now()) THEN l.lease_id END,
                   'lastConsumedAt', queen_internal.iso_millis(l.last_consumed_at),
                   'totalConsumed', l.total_consumed,
                   'offsetLag', l.offset_lag,
                   'timeLagSeconds', queen_internal.lag_seconds(l.next_at, coalesce(p_now, now())),
                   'leaseActive', coalesce(l.lease_expires_at > coalesce(p_now, now()), false))
                   ORDER BY l.partition_name) AS partitions
            FROM queen_internal.cursor_lags(p_tenant, p_group) l
           GROUP BY l.queue_name) x
$function$;

COMMENT ON FUNCTION queen.consumer_group_detail(p_group text, p_tenant text, p_now timestamp with time zone) IS 'GET /api/v1/consumer-groups/:group: {queue: {partitions: [...]}} over the queues of tenant p_tenant where group p_group has cursor rows; {} for an unknown group.';
GRANT EXECUTE ON FUNCTION queen.consumer_group_detail(p_group text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker, queen_reader;
