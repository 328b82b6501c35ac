CREATE OR REPLACE FUNCTION queen.prune_stats_history(p_keep_hours integer, p_limit integer DEFAULT 10000, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_before timestamptz;
  v_queue_rows int;
  v_broker_rows int;
BEGIN
  PERFORM queen_internal.check_at_least('prune_stats_history keep hours', p_keep_hours, 1);
  PERFORM queen_internal.check_at_least('prune_stats_history limit', p_limit, 1);
  v_before := coalesce(p_now, clock_timestamp()) - p_keep_hours * interval '1 hour';
  DELETE FROM queen.queue_stats_minutes h
   WHERE (h.queue_id, h.minute) IN (SELECT x.queue_id, x.minute FROM queen.queue_stats_minutes x
                                      WHERE x.minute < v_before ORDER BY x.minute LIMIT p_limit);
  GET DIAGNOSTICS v_queue_rows = ROW_COUNT;
  DELETE FROM queen.broker_stats_minutes b
   WHERE (b.server_id, b.minute) IN (SELECT x.server_id, x.minute FROM queen.broker_stats_minutes x
                                       WHERE x.minute < v_before ORDER BY x.minute LIMIT p_limit);
  GET DIAGNOSTICS v_broker_rows = ROW_COUNT;
  RETURN v_queue_rows + v_broker_rows;
END;
$function$;

COMMENT ON FUNCTION queen.prune_stats_history(p_keep_hours integer, p_limit integer, p_now timestamp with time zone) IS 'Deletes at most p_limit queue_stats_minutes rows and p_limit broker_stats_minutes rows older than p_keep_hours before p_now (null = clock_timestamp()), oldest first. Returns the rows deleted; call again while it returns more than 0. 22023 on keep hours or limit < 1.';
GRANT EXECUTE ON FUNCTION queen.prune_stats_history(p_keep_hours integer, p_limit integer, p_now timestamp with time zone) TO queen_admin, queen_broker;
