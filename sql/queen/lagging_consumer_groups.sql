CREATE OR REPLACE FUNCTION queen.lagging_consumer_groups(p_min_lag_seconds bigint, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
BEGIN
  PERFORM queen_internal.check_at_least('minLagSeconds', p_min_lag_seconds, 0);
  RETURN (
    SELECT coalesce(jsonb_agg(jsonb_build_object(
             'consumer_group', l.consumer_group,
             'queue_name', l.queue_name,
             'partition_name', l.partition_name,
             'partition_id', l.partition_id,
             'worker_id', CASE WHEN l.lease_expires_at > v_now THEN l.lease_id END,
             'offset_lag', l.offset_lag,
             'time_lag_seconds', queen_internal.lag_seconds(l.next_at, v_now),
             'lag_hours', round(queen_internal.lag_seconds(l.next_at, v_now) / 3600.0, 2),
             'oldest_unconsumed_at', queen_internal.iso_millis(l.next_at),
             'last_consumed_at', queen_internal.iso_millis(l.last_consumed_at))
             ORDER BY l.next_at, l.consumer_group, l.queue_name, l.partition_name), '[]'::jsonb)
      FROM queen_internal.cursor_lags(p_tenant) l
     WHERE l.next_at <= v_now - p_min_lag_seconds * interval '1 second');
END;
$function$;

COMMENT ON FUNCTION queen.lagging_consumer_groups(p_min_lag_seconds bigint, p_tenant text, p_now timestamp with time zone) IS 'GET /api/v1/consumer-groups/lagging: the cursor rows of tenant p_tenant whose oldest unconsumed message is at least p_min_lag_seconds old at p_now, most lagging first, as snake_case objects. 22023 on a negative p_min_lag_seconds.';
GRANT EXECUTE ON FUNCTION queen.lagging_consumer_groups(p_min_lag_seconds bigint, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker, queen_reader;
