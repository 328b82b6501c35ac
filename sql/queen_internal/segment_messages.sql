CREATE OR REPLACE FUNCTION queen_internal.segment_messages(p_partition_id uuid, p_after_seq bigint, p_max integer)
 RETURNS TABLE(seq bigint, message_id uuid, transaction_id text, payload text, trace_id uuid, producer_sub text, is_encrypted boolean, created_at timestamp with time zone)
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_left int := p_max;
  v_taken int;
  r record;
BEGIN
  IF coalesce(p_max, 0) <= 0 THEN
    RETURN;
  END IF;
  -- Segment by segment from the one holding p_after_seq + 1, in primary-key order, until p_max messages: the
  -- segments' heads first, then only the ones needed are unnested (each array detoasted once).
  FOR r IN SELECT s.base_seq FROM queen.segments s
            WHERE s.partition_id = p_partition_id AND s.payloads IS NOT NULL AND s.end_seq > p_after_seq
              AND s.base_seq >= queen_internal.segment_head(p_partition_id, p_after_seq + 1)
            ORDER BY s.base_seq LOOP
    RETURN QUERY
    SELECT s.base_seq + e.ord - 1, e.message_id, e.transaction_id, e.payload, e.trace_id, s.producer_sub,
           coalesce(e.encrypted, false), s.created_at
      FROM queen.segments s
     CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.payloads, s.trace_ids, s.encrypted)
                        WITH ORDINALITY AS e(message_id, transaction_id, payload, trace_id, encrypted, ord)
     WHERE s.partition_id = p_partition_id AND s.base_seq = r.base_seq
       AND s.base_seq + e.ord - 1 > p_after_seq AND e.payload IS NOT NULL
     ORDER BY e.ord
     LIMIT v_left;
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    v_left := v_left - v_taken;
    EXIT WHEN v_left <= 0;
  END LOOP;
END;
$function$;

COMMENT ON FUNCTION queen_internal.segment_messages(p_partition_id uuid, p_after_seq bigint, p_max integer) IS 'The log engine''s read: up to p_max messages of partition p_partition_id after seq p_after_seq, in seq order, one row each (payload as the stored JSON text); deleted messages and segments emptied by retention are skipped. Unnests only the segments that hold them, from the one holding p_after_seq + 1.';
