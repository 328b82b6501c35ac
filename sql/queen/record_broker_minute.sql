CREATE OR REPLACE FUNCTION queen.record_broker_minute(p_server_id text, p_figures jsonb, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  IF p_figures IS NULL OR jsonb_typeof(p_figures) <> 'object' THEN
    RAISE EXCEPTION 'broker figures must be a JSON object' USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.broker_stats_minutes AS b
         (server_id, minute, hostname, port, requests, push_requests, push_messages, pop_requests, pop_messages,
          ack_messages, ack_failed, db_errors, pool_size, pool_in_use, pool_waiting, parked_pops, rss_bytes,
          cpu_user_us, cpu_system_us, lanes)
  VALUES (p_server_id, date_trunc('minute', coalesce(p_now, clock_timestamp())),
          coalesce(p_figures->>'hostname', ''), coalesce((p_figures->>'port')::int, 0),
          coalesce((p_figures->>'requests')::bigint, 0), coalesce((p_figures->>'pushRequests')::bigint, 0),
          coalesce((p_figures->>'pushMessages')::bigint, 0), coalesce((p_figures->>'popRequests')::bigint, 0),
          coalesce((p_figures->>'popMessages')::bigint, 0), coalesce((p_figures->>'ackMessages')::bigint, 0),
          coalesce((p_figures->>'ackFailed')::bigint, 0), coalesce((p_figures->>'dbErrors')::bigint, 0),
          coalesce((p_figures->>'poolSize')::int, 0), coalesce((p_figures->>'poolInUse')::int, 0),
          coalesce((p_figures->>'poolWaiting')::int, 0), coalesce((p_figures->>'parkedPops')::int, 0),
          coalesce((p_figures->>'rssBytes')::bigint, 0), coalesce((p_figures->>'cpuUserUs')::bigint, 0),
          coalesce((p_figures->>'cpuSystemUs')::bigint, 0), coalesce(p_figures->'lanes', '[]'::jsonb))
  ON CONFLICT ON CONSTRAINT broker_stats_minutes_pkey DO UPDATE
     SET hostname = EXCLUDED.hostname, port = EXCLUDED.port,
         requests = b.requests + EXCLUDED.requests, push_requests = b.push_requests + EXCLUDED.push_requests,
         push_messages = b.push_messages + EXCLUDED.push_messages, pop_requests = b.pop_requests + EXCLUDED.pop_requests,
         pop_messages = b.pop_messages + EXCLUDED.pop_messages, ack_messages = b.ack_messages + EXCLUDED.ack_messages,
         ack_failed = b.ack_failed + EXCLUDED.ack_failed, db_errors = b.db_errors + EXCLUDED.db_errors,
         pool_size = EXCLUDED.pool_size, pool_in_use = EXCLUDED.pool_in_use, pool_waiting = EXCLUDED.pool_waiting,
         parked_pops = EXCLUDED.parked_pops, rss_bytes = EXCLUDED.rss_bytes,
         cpu_user_us = b.cpu_user_us + EXCLUDED.cpu_user_us, cpu_system_us = b.cpu_system_us + EXCLUDED.cpu_system_us,
         lanes = EXCLUDED.lanes;
END;
$function$;

COMMENT ON FUNCTION queen.record_broker_minute(p_server_id text, p_figures jsonb, p_now timestamp with time zone) IS 'Adds one flush of broker p_server_id to its broker_stats_minutes row of the current minute: counters (requests, pushRequests, pushMessages, popRequests, popMessages, ackMessages, ackFailed, dbErrors, cpuUserUs, cpuSystemUs) are added, gauges (hostname, port, poolSize, poolInUse, poolWaiting, parkedPops, rssBytes, lanes) replaced. 22023 on an empty server id or figures that are not an object.';
GRANT EXECUTE ON FUNCTION queen.record_broker_minute(p_server_id text, p_figures jsonb, p_now timestamp with time zone) TO queen_admin, queen_broker;
