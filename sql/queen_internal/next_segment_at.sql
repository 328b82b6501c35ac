CREATE OR REPLACE FUNCTION queen_internal.next_segment_at(p_partition_id uuid, p_after_seq bigint)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  -- PL/pgSQL, not SQL: an SQL function that reads a table is planned again on every call.
  RETURN (SELECT s.created_at FROM queen.segments s
           WHERE s.partition_id = p_partition_id AND s.base_seq >= queen_internal.segment_head(p_partition_id, p_after_seq + 1)
             AND s.end_seq > p_after_seq AND s.payloads IS NOT NULL
           ORDER BY s.base_seq LIMIT 1);
END;
$function$;

COMMENT ON FUNCTION queen_internal.next_segment_at(p_partition_id uuid, p_after_seq bigint) IS 'When the next message of partition p_partition_id after seq p_after_seq was pushed (null when there is none): the created_at of the first segment with a message after it that retention has not emptied. Reads segment heads only; a segment whose messages after p_after_seq were all deleted one by one still counts.';
