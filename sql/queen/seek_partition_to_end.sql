CREATE OR REPLACE FUNCTION queen.seek_partition_to_end(p_group text, p_queue text, p_partition text, p_tenant text)
 RETURNS TABLE(partition_found boolean, cursor_moved_to timestamp with time zone)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_partition record;
BEGIN
  IF coalesce(p_group, '') = '' OR coalesce(p_queue, '') = '' OR coalesce(p_partition, '') = '' THEN
    RAISE EXCEPTION 'consumer group, queue and partition are required' USING ERRCODE = '22023';
  END IF;
  SELECT p.id, p.queue_id, p.last_seq INTO v_partition
    FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id AND p.name = p_partition
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, NULL::timestamptz;
    RETURN;
  END IF;
  -- A group without a cursor row here gets one (it then skips what the partition holds).
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  VALUES (v_partition.id, p_group, v_partition.queue_id, v_partition.last_seq)
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;
  PERFORM queen_internal.move_cursors(p_group, ARRAY[v_partition.id], true, NULL);
  RETURN QUERY
    SELECT true, (SELECT s.created_at FROM queen.consumers c
                    JOIN queen.segments s ON s.partition_id = c.partition_id
                                         AND s.base_seq = queen_internal.segment_head(c.partition_id, c.cursor_seq)
                                         AND s.end_seq >= c.cursor_seq
                   WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group);
END;
$function$;

COMMENT ON FUNCTION queen.seek_partition_to_end(p_group text, p_queue text, p_partition text, p_tenant text) IS 'POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek: puts group p_group''s cursor on partition p_partition of queue p_queue (tenant p_tenant) at its newest message (creating the cursor row if the group has none there), dropping the lease. Returns (false, null) for an unknown queue or partition, else (true, creation time of the message the cursor is on; null for an empty partition). 22023 on a missing name.';
GRANT EXECUTE ON FUNCTION queen.seek_partition_to_end(p_group text, p_queue text, p_partition text, p_tenant text) TO queen_admin, queen_broker;
