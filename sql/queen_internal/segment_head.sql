CREATE OR REPLACE FUNCTION queen_internal.segment_head(p_partition_id uuid, p_seq bigint)
 RETURNS bigint
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  -- PL/pgSQL, not SQL: an SQL function that reads a table is planned again on every call (about 90 us here).
  RETURN coalesce((SELECT s.base_seq FROM queen.segments s
                    WHERE s.partition_id = p_partition_id AND s.base_seq <= p_seq
                    ORDER BY s.base_seq DESC LIMIT 1), 0);
END;
$function$;

COMMENT ON FUNCTION queen_internal.segment_head(p_partition_id uuid, p_seq bigint) IS 'The base_seq of the segment of partition p_partition_id that holds seq p_seq, or of the last one before it (0 when none): where a primary-key walk that wants the messages from p_seq on starts. One backward probe of the primary key.';
