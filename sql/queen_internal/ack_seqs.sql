CREATE OR REPLACE FUNCTION queen_internal.ack_seqs(p_partition_id uuid, p_group text, p_transaction_ids text[], p_now timestamp with time zone)
 RETURNS TABLE(idx integer, seq bigint)
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_cursor bigint;
  v_batch_end bigint;
  v_seqs bigint[];     -- v_seqs[i]: the seq of p_transaction_ids[i], null while not found
BEGIN
  SELECT c.cursor_seq, greatest(c.lease_max_seq, c.cursor_seq + 1) INTO v_cursor, v_batch_end
    FROM queen.consumers c WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group;
  v_cursor := coalesce(v_cursor, 0);
  v_batch_end := coalesce(v_batch_end, 1);
  -- 1. The batch after the group's cursor (its lease), where acks land: only the segments that hold it.
  WITH batch AS (
    SELECT s.base_seq + e.ord - 1 AS seq, e.transaction_id
      FROM queen.segments s
     CROSS JOIN LATERAL unnest(s.transaction_ids) WITH ORDINALITY AS e(transaction_id, ord)
     WHERE s.partition_id = p_partition_id AND s.payloads IS NOT NULL
       AND s.base_seq >= queen_internal.segment_head(p_partition_id, v_cursor + 1) AND s.base_seq <= v_batch_end
  ), found AS (
    SELECT i.idx, min(b.seq) AS seq
      FROM unnest(p_transaction_ids) WITH ORDINALITY AS i(transaction_id, idx)
      JOIN batch b ON b.transaction_id = i.transaction_id
     WHERE b.seq > v_cursor AND b.seq <= v_batch_end
     GROUP BY i.idx
  )
  SELECT array_agg(f.seq ORDER BY g) INTO v_seqs
    FROM generate_subscripts(p_transaction_ids, 1) g LEFT JOIN found f ON f.idx = g;
  -- 2. The others (acked again after the cursor passed them, or ahead of the batch): the dedup window, where a
  --    transaction id names one message.
  IF array_position(v_seqs, NULL) IS NOT NULL THEN
    SELECT array_agg(coalesce(v_seqs[i.idx], d.seq) ORDER BY i.idx) INTO v_seqs
      FROM generate_subscripts(p_transaction_ids, 1) AS i(idx)
      LEFT JOIN queen_internal.segment_duplicates(
                  p_partition_id,
                  ARRAY(SELECT CASE WHEN v_seqs[g] IS NULL THEN p_transaction_ids[g] END
                          FROM generate_subscripts(p_transaction_ids, 1) g ORDER BY g),
                  NULL, p_now - queen_internal.dedup_window(NULL)) d ON d.idx = i.idx;
  END IF;
  RETURN QUERY SELECT g::int, v_seqs[g] FROM generate_subscripts(p_transaction_ids, 1) g WHERE v_seqs[g] IS NOT NULL;
END;
$function$;

COMMENT ON FUNCTION queen_internal.ack_seqs(p_partition_id uuid, p_group text, p_transaction_ids text[], p_now timestamp with time zone) IS 'The seqs of the messages an ack of group p_group names by transaction id in partition p_partition_id (idx = 1-based position in p_transaction_ids; absent when not found). Reads the segments of the group''s batch (after its cursor, up to its lease''s last seq) first; what is not there is looked up in the dedup window (queen_internal.segment_duplicates), the only span where a transaction id names one message.';
