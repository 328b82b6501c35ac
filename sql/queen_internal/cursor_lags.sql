CREATE OR REPLACE FUNCTION queen_internal.cursor_lags(p_tenant text, p_group text DEFAULT NULL::text)
 RETURNS TABLE(consumer_group text, queue_id uuid, queue_name text, partition_id uuid, partition_name text, lease_id uuid, lease_expires_at timestamp with time zone, total_consumed bigint, last_consumed_at timestamp with time zone, offset_lag bigint, next_at timestamp with time zone)
 LANGUAGE sql STABLE AS $function$
  SELECT c.consumer_group, q.id, q.name, p.id, p.name, c.lease_id, c.lease_expires_at, c.total_consumed,
         c.last_consumed_at, greatest(p.last_seq - c.cursor_seq, 0),
         CASE WHEN p.last_seq > c.cursor_seq THEN queen_internal.next_segment_at(c.partition_id, c.cursor_seq) END
    FROM queen.queues q
    JOIN queen.consumers c ON c.queue_id = q.id AND (p_group IS NULL OR c.consumer_group = p_group)
    JOIN queen.partitions p ON p.id = c.partition_id
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant)
$function$;

COMMENT ON FUNCTION queen_internal.cursor_lags(p_tenant text, p_group text) IS 'Cursor rows of tenant p_tenant (of group p_group; null = every group) with offset lag (last_seq - cursor) and the creation time of the next unconsumed message (null = none).';
