CREATE OR REPLACE FUNCTION queen.apply_retention(p_batch integer, p_dedup_window interval DEFAULT '24:00:00'::interval, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_budget int := p_batch;
  v_target record;
  v_count int;
  -- Whether any queue keeps messages for a limited time. When none does (the default), the partition and
  -- dead-letter sweeps below are skipped: planned for ORDER BY, they walk every partition to find none.
  v_any_retention bool := EXISTS (SELECT 1 FROM queen.queues q
                                   WHERE q.retention_enabled
                                     AND (q.retention_seconds > 0 OR q.completed_retention_seconds > 0));
BEGIN
  PERFORM queen_internal.check_at_least('batch', p_batch, 1);
  IF p_dedup_window IS NULL OR p_dedup_window < interval '0' THEN
    RAISE EXCEPTION 'dedup window must be >= 0, got %', p_dedup_window USING ERRCODE = '22023';
  END IF;

  -- Partitions with something to delete: pending retention (any message older than
  -- retentionSeconds) or completed retention (older than completedRetentionSeconds and
  -- passed by every cursor of the partition; a partition without cursors keeps all).
  FOR v_target IN
    SELECT p.id AS partition_id, r.cutoff, r.max_seq
      FROM queen.queues q
      JOIN queen.partitions p ON p.queue_id = q.id
      CROSS JOIN LATERAL (
        SELECT 'pending' AS kind, v_now - q.retention_seconds * interval '1 second' AS cutoff, NULL::bigint AS max_seq
         WHERE q.retention_seconds > 0
        UNION ALL
        SELECT 'completed', v_now - q.completed_retention_seconds * interval '1 second',
               (SELECT min(c.cursor_seq) FROM queen.consumers c WHERE c.partition_id = p.id)
         WHERE q.completed_retention_seconds > 0
      ) r
     WHERE v_any_retention AND q.retention_enabled
       AND (r.kind = 'pending' OR r.max_seq > 0)
       AND (queen_internal.next_segment_at(p.id, p.removed_seq) < r.cutoff
            -- emptied segments whose dedup window is over
            OR (SELECT s.created_at FROM queen.segments s WHERE s.partition_id = p.id ORDER BY s.base_seq LIMIT 1)
               < v_now - p_dedup_window)
     ORDER BY p.id
  LOOP
    EXIT WHEN v_budget <= 0;
    v_count := queen_internal.delete_partition_head(v_target.partition_id, v_target.cutoff, v_target.max_seq, v_budget,
                                           v_now - p_dedup_window);
    v_budget := v_budget - v_count;
  END LOOP;

  -- Dead letters of retention-enabled queues age out with retentionSeconds (they
  -- outlive their message on purpose, but not forever).
  IF v_budget > 0 AND v_any_retention THEN
    WITH doomed AS (
      SELECT d.message_id, d.consumer_group
        FROM queen.dlq d
        JOIN queen.partitions p ON p.id = d.partition_id
        JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.retention_enabled AND q.retention_seconds > 0
         AND d.failed_at < v_now - q.retention_seconds * interval '1 second'
       LIMIT v_budget
    )
    DELETE FROM queen.dlq d USING doomed x
     WHERE d.message_id = x.message_id AND d.consumer_group = x.consumer_group;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_budget := v_budget - v_count;
  END IF;

  -- Tombstones (of a database upgraded from 1.1.0) whose dedup window is over.
  IF v_budget > 0 THEN
    WITH doomed AS (
      SELECT t.partition_id, t.transaction_id FROM queen.dedup_tombstones t
       WHERE t.expires_at <= v_now
       ORDER BY t.expires_at
       LIMIT v_budget
    )
    DELETE FROM queen.dedup_tombstones t USING doomed x
     WHERE t.partition_id = x.partition_id AND t.transaction_id = x.transaction_id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_budget := v_budget - v_count;
  END IF;

  RETURN p_batch - v_budget;
END;
$function$;

COMMENT ON FUNCTION queen.apply_retention(p_batch integer, p_dedup_window interval, p_now timestamp with time zone) IS 'Retention sweep for queues with retentionEnabled: removes whole segments whose messages are older than retentionSeconds, or older than completedRetentionSeconds and passed by every cursor of their partition; a segment pushed less than p_dedup_window ago (QUEEN_DEDUP_WINDOW_MS) is emptied instead (its transaction ids keep deduplicating) and deleted once the window is over. Also deletes DLQ entries older than retentionSeconds and the dedup tombstones of an upgraded 1.1.0 database past their window. Ages are measured at p_now (null = now()). About p_batch messages in total (whole segments); returns how many were removed (call again while it returns at least p_batch).';
GRANT EXECUTE ON FUNCTION queen.apply_retention(p_batch integer, p_dedup_window interval, p_now timestamp with time zone) TO queen_admin, queen_broker;
