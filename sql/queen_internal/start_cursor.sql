CREATE OR REPLACE FUNCTION queen_internal.start_cursor(p_partition_id uuid, p_last_seq bigint, p_last_message_at timestamp with time zone, p_start_at timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql STABLE AS $function$
  SELECT CASE
    WHEN p_start_at IS NULL THEN 0
    WHEN p_last_message_at IS NULL OR p_last_message_at < p_start_at THEN p_last_seq
    ELSE coalesce((SELECT s.end_seq FROM queen.segments s
                    WHERE s.partition_id = p_partition_id AND s.created_at < p_start_at
                    ORDER BY s.base_seq DESC LIMIT 1), 0)
  END
$function$;

COMMENT ON FUNCTION queen_internal.start_cursor(p_partition_id uuid, p_last_seq bigint, p_last_message_at timestamp with time zone, p_start_at timestamp with time zone) IS 'Initial cursor_seq on a partition for a group starting at p_start_at: seq of the last message created before it; 0 when p_start_at is null.';
