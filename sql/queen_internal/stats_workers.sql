CREATE OR REPLACE FUNCTION queen_internal.stats_workers(p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'workerId', w.server_id, 'hostname', w.hostname, 'port', w.port,
           'lastSeen', queen_internal.iso_millis(w.last_minute + interval '1 minute'),
           'requests', w.requests, 'pushMessages', w.push_messages, 'popMessages', w.pop_messages,
           'ackMessages', w.ack_messages, 'ackFailed', w.ack_failed, 'dbErrors', w.db_errors,
           'poolSize', w.pool_size, 'poolInUse', w.pool_in_use, 'parkedPops', w.parked_pops)
           ORDER BY w.server_id), '[]'::jsonb)
    FROM (SELECT b.server_id, max(b.minute) AS last_minute,
                 (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
                 (array_agg(b.port ORDER BY b.minute DESC))[1] AS port,
                 sum(b.requests) AS requests, sum(b.push_messages) AS push_messages,
                 sum(b.pop_messages) AS pop_messages, sum(b.ack_messages) AS ack_messages,
                 sum(b.ack_failed) AS ack_failed, sum(b.db_errors) AS db_errors,
                 (array_agg(b.pool_size ORDER BY b.minute DESC))[1] AS pool_size,
                 (array_agg(b.pool_in_use ORDER BY b.minute DESC))[1] AS pool_in_use,
                 (array_agg(b.parked_pops ORDER BY b.minute DESC))[1] AS parked_pops
            FROM queen.broker_stats_minutes b
           WHERE b.minute >= date_trunc('minute', p_from) AND b.minute <= p_to
           GROUP BY b.server_id) w
$function$;

COMMENT ON FUNCTION queen_internal.stats_workers(p_from timestamp with time zone, p_to timestamp with time zone) IS 'Brokers with figures in [p_from, p_to]: counters summed over the window, gauges of their newest minute.';
