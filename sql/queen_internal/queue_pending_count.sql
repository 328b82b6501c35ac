CREATE OR REPLACE FUNCTION queen_internal.queue_pending_count(p_queue_id uuid)
 RETURNS bigint
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce(sum(pending.n), 0)::bigint
    FROM queen.partitions p
    CROSS JOIN LATERAL (SELECT coalesce((SELECT min(c.cursor_seq) FROM queen.consumers c WHERE c.partition_id = p.id), 0) AS cursor_seq) c
    CROSS JOIN LATERAL (
      -- per segment the seqs after the cursor, less the messages deleted one by one among them
      SELECT sum(s.end_seq - greatest(s.base_seq - 1, c.cursor_seq)
                 - (SELECT count(*) FROM unnest(array_positions(s.payloads, NULL)) k WHERE s.base_seq + k - 1 > c.cursor_seq)) AS n
        FROM queen.segments s
       WHERE s.partition_id = p.id AND s.base_seq >= queen_internal.segment_head(p.id, c.cursor_seq + 1)
         AND s.end_seq > c.cursor_seq AND s.payloads IS NOT NULL
    ) pending
   WHERE p.queue_id = p_queue_id
$function$;

COMMENT ON FUNCTION queen_internal.queue_pending_count(p_queue_id uuid) IS 'Messages of the queue that at least one consumer group has not consumed yet (all messages of partitions without consumers). maxSize caps this number.';
