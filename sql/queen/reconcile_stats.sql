CREATE OR REPLACE FUNCTION queen.reconcile_stats(p_limit integer DEFAULT 100, p_max_age_ms bigint DEFAULT 0, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_refreshed int;
BEGIN
  PERFORM queen_internal.check_at_least('reconcile_stats limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('reconcile_stats max age ms', p_max_age_ms, 0);
  -- Another writer (a manual refresh) is at work: it covers this batch.
  IF NOT pg_try_advisory_xact_lock(queen_internal.stats_work_lock_key()) THEN
    RETURN 0;
  END IF;
  -- Queues without stats first, then the stalest; rows refreshed less than
  -- p_max_age_ms ago are left alone, so repeated calls of one run move on.
  WITH stale AS (
    SELECT q.id
      FROM queen.queues q
      LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
     WHERE s.queue_id IS NULL
        OR s.updated_at <= v_now - p_max_age_ms * interval '1 millisecond'
     ORDER BY s.updated_at NULLS FIRST, q.id
     LIMIT p_limit
  ), fresh AS (
    -- LATERAL, not (f(x)).*: the latter calls the function once per output column.
    SELECT f.* FROM stale CROSS JOIN LATERAL queen_internal.compute_queue_stats(stale.id, p_now) f
  ), stored AS (
    INSERT INTO queen.queue_stats AS s
    SELECT * FROM fresh
    ON CONFLICT (queue_id) DO UPDATE
       SET partitions = EXCLUDED.partitions, consumer_groups = EXCLUDED.consumer_groups, total = EXCLUDED.total,
           pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
           dead_letter = EXCLUDED.dead_letter, newest_message_at = EXCLUDED.newest_message_at,
           updated_at = EXCLUDED.updated_at, consumed = EXCLUDED.consumed,
           oldest_pending_at = EXCLUDED.oldest_pending_at
    RETURNING s.queue_id
  )
  -- The deltas against the previous row (read from the snapshot before the
  -- upsert above); a queue's first refresh counts everything since its creation.
  INSERT INTO queen.queue_stats_minutes AS h
         (queue_id, minute, pushed, popped, acked, dead_lettered, pending, processing, dead_letter, lag_seconds)
  SELECT f.queue_id, date_trunc('minute', v_now),
         greatest(f.total - coalesce(o.total, 0), 0),
         greatest((f.consumed + f.processing) - coalesce(o.consumed + o.processing, 0), 0),
         greatest(f.consumed - coalesce(o.consumed, 0), 0),
         greatest(f.dead_letter - coalesce(o.dead_letter, 0), 0),
         f.pending, f.processing, f.dead_letter,
         greatest(extract(epoch FROM v_now - f.oldest_pending_at), 0)
    FROM fresh f
    JOIN stored ON stored.queue_id = f.queue_id
    LEFT JOIN queen.queue_stats o ON o.queue_id = f.queue_id
  ON CONFLICT ON CONSTRAINT queue_stats_minutes_pkey DO UPDATE
     SET pushed = h.pushed + EXCLUDED.pushed, popped = h.popped + EXCLUDED.popped, acked = h.acked + EXCLUDED.acked,
         dead_lettered = h.dead_lettered + EXCLUDED.dead_lettered, pending = EXCLUDED.pending,
         processing = EXCLUDED.processing, dead_letter = EXCLUDED.dead_letter, lag_seconds = EXCLUDED.lag_seconds;
  GET DIAGNOSTICS v_refreshed = ROW_COUNT;
  RETURN v_refreshed;
END;
$function$;

COMMENT ON FUNCTION queen.reconcile_stats(p_limit integer, p_max_age_ms bigint, p_now timestamp with time zone) IS 'Refreshes queen.queue_stats for at most p_limit queues: those without a row first, then the stalest, skipping rows refreshed less than p_max_age_ms before p_now (null = clock_timestamp()), and adds each refreshed queue''s deltas and gauges to its queen.queue_stats_minutes row of that minute. Returns how many were refreshed (0 at once while a manual refresh_stats holds the statistics lock); call again while it returns p_limit. 22023 on limit < 1 or a negative age.';
GRANT EXECUTE ON FUNCTION queen.reconcile_stats(p_limit integer, p_max_age_ms bigint, p_now timestamp with time zone) TO queen_admin, queen_broker;
