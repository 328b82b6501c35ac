CREATE OR REPLACE FUNCTION queen_internal.move_cursors(p_group text, p_partition_ids uuid[], p_to_end boolean, p_at timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql AS $function$
DECLARE
  v_locked uuid[];
BEGIN
  -- ascending partition order, as acks lock them, so a seek never deadlocks with an ack
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.partition_id), '{}') INTO v_locked
    FROM (SELECT c.partition_id FROM queen.consumers c
           WHERE c.partition_id = ANY (p_partition_ids) AND c.consumer_group = p_group
           ORDER BY c.partition_id FOR UPDATE) x;
  UPDATE queen.consumers c
     SET cursor_seq = CASE WHEN p_to_end THEN p.last_seq
                           -- "at or before p_at" = before the next microsecond (timestamptz resolution)
                           ELSE queen_internal.start_cursor(p.id, p.last_seq, p.last_message_at, p_at + interval '1 microsecond') END,
         pending = true,
         lease_id = NULL, lease_expires_at = NULL, lease_count = 0, lease_acked = 0, lease_max_seq = 0,
         retry_count = 0, failed_lease_id = NULL, available_at = NULL
    FROM queen.partitions p
   WHERE p.id = c.partition_id AND c.partition_id = ANY (v_locked) AND c.consumer_group = p_group;
  PERFORM queen_internal.settle_drained(p_group, v_locked);
  RETURN cardinality(v_locked);
END;
$function$;

COMMENT ON FUNCTION queen_internal.move_cursors(p_group text, p_partition_ids uuid[], p_to_end boolean, p_at timestamp with time zone) IS 'Internal to the seek procedures: moves the cursor rows of p_group on p_partition_ids to the newest message (p_to_end) or to the last message created at or before p_at, drops their leases, marks them pending and settles those with nothing left. Returns how many rows moved.';
