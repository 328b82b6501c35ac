CREATE OR REPLACE FUNCTION queen_internal.queue_pending_count(p_queue_id uuid)
 RETURNS bigint
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce(sum(pending.n), 0)::bigint
    FROM queen.partitions p
    CROSS JOIN LATERAL (
      SELECT count(*) AS n FROM queen.messages m
       WHERE m.partition_id = p.id
         AND m.seq > coalesce((SELECT min(c.cursor_seq) FROM queen.consumers c WHERE c.partition_id = p.id), 0)
    ) pending
   WHERE p.queue_id = p_queue_id
$function$;

COMMENT ON FUNCTION queen_internal.queue_pending_count(p_queue_id uuid) IS 'Messages of the queue that at least one consumer group has not consumed yet (all messages of partitions without consumers). maxSize caps this number.';
