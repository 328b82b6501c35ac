CREATE OR REPLACE FUNCTION queen_internal.stats_partitions(p_queue_id uuid, p_limit integer, p_offset integer)
 RETURNS TABLE(id uuid, name text, created_at timestamp with time zone, total bigint, pending bigint, processing bigint, completed bigint, dead_letter bigint, consumed bigint, oldest_message_at timestamp with time zone, newest_message_at timestamp with time zone, oldest_pending_at timestamp with time zone)
 LANGUAGE sql STABLE AS $function$
  SELECT p.id, p.name, p.created_at, p.last_seq,
         p.last_seq - coalesce(c.min_cursor, 0), coalesce(c.in_flight, 0), coalesce(c.min_cursor, 0),
         (SELECT count(*) FROM queen.dlq d WHERE d.partition_id = p.id),
         coalesce(c.consumed, 0),
         queen_internal.next_segment_at(p.id, 0),
         p.last_message_at,
         queen_internal.next_segment_at(p.id, coalesce(c.min_cursor, 0))
    FROM (SELECT * FROM queen.partitions p WHERE p.queue_id = p_queue_id
           ORDER BY p.name LIMIT p_limit OFFSET p_offset) p
    LEFT JOIN LATERAL (
      SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor,
             sum(least(c.cursor_seq, p.last_seq)) AS consumed,
             sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()
                      THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END) AS in_flight
        FROM queen.consumers c WHERE c.partition_id = p.id
    ) c ON true
   ORDER BY p.name
$function$;

COMMENT ON FUNCTION queen_internal.stats_partitions(p_queue_id uuid, p_limit integer, p_offset integer) IS 'Live counters of one page (p_limit partitions from p_offset, by name) of one queue''s partitions (same definitions as queen.queue_stats) with each one''s oldest stored, newest and oldest pending message times.';
