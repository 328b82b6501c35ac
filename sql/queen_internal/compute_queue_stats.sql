CREATE OR REPLACE FUNCTION queen_internal.compute_queue_stats(p_queue_id uuid, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS queen.queue_stats
 LANGUAGE sql STABLE SET jit TO 'off' AS $function$
  WITH per_partition AS (
    SELECT p.id, p.last_seq, p.last_message_at,
           -- FILTER: least() ignores nulls, so a partition without cursor rows would count as drained.
           coalesce(min(least(c.cursor_seq, p.last_seq)) FILTER (WHERE c.cursor_seq IS NOT NULL), 0) AS min_cursor,
           coalesce(sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > coalesce(p_now, clock_timestamp())
                             THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END), 0) AS in_flight,
           coalesce(sum(least(c.cursor_seq, p.last_seq)) FILTER (WHERE c.cursor_seq IS NOT NULL), 0) AS consumed
      FROM queen.partitions p
      LEFT JOIN queen.consumers c ON c.partition_id = p.id AND c.queue_id = p_queue_id
     WHERE p.queue_id = p_queue_id
     GROUP BY p.id
  )
  SELECT p_queue_id,
         count(*)::int,
         (SELECT count(DISTINCT c.consumer_group) FROM queen.consumers c WHERE c.queue_id = p_queue_id)::int,
         coalesce(sum(pp.last_seq), 0)::bigint,
         coalesce(sum(pp.last_seq - pp.min_cursor), 0)::bigint,
         coalesce(sum(pp.in_flight), 0)::bigint,
         coalesce(sum(pp.min_cursor), 0)::bigint,
         (SELECT count(*) FROM queen.dlq d
           WHERE d.partition_id IN (SELECT p.id FROM queen.partitions p WHERE p.queue_id = p_queue_id))::bigint,
         max(pp.last_message_at),
         coalesce(p_now, clock_timestamp()),
         coalesce(sum(pp.consumed), 0)::bigint,
         -- The oldest message not consumed by the slowest group; CASE keeps the probe off drained partitions.
         min(CASE WHEN pp.last_seq > pp.min_cursor
                  THEN queen_internal.next_segment_at(pp.id, pp.min_cursor) END)
    FROM per_partition pp
$function$;

COMMENT ON FUNCTION queen_internal.compute_queue_stats(p_queue_id uuid, p_now timestamp with time zone) IS 'The queue_stats row of one queue computed from partitions, consumer cursors and leases (live at p_now, null = clock_timestamp()), and the DLQ (not stored).';
