CREATE OR REPLACE FUNCTION queen_internal.append_segment(p_partition_id uuid, p_created_at timestamp with time zone, p_producer_sub text, p_message_ids uuid[], p_transaction_ids text[], p_payloads text[], p_trace_ids uuid[], p_encrypted boolean[], p_after_seq bigint, p_since timestamp with time zone, OUT base_seq bigint, OUT end_seq bigint, OUT duplicate_idx integer[], OUT duplicate_ids uuid[])
 RETURNS record
 LANGUAGE plpgsql AS $function$
DECLARE
  v_count int := cardinality(p_message_ids);
  v_last_seq bigint;
  v_keep int[];  -- the positions stored, when some are duplicates
BEGIN
  IF v_count = 0 OR cardinality(p_transaction_ids) IS DISTINCT FROM v_count OR cardinality(p_payloads) IS DISTINCT FROM v_count
     OR cardinality(p_trace_ids) <> v_count OR cardinality(p_encrypted) <> v_count THEN
    RAISE EXCEPTION 'append_segment: % message ids, % transaction ids, % payloads, % trace ids, % encrypted flags',
      v_count, cardinality(p_transaction_ids), cardinality(p_payloads), cardinality(p_trace_ids), cardinality(p_encrypted)
      USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(DISTINCT t) FROM unnest(p_transaction_ids) t) <> v_count THEN
    RAISE EXCEPTION 'append_segment: the transaction ids of one segment must be distinct' USING ERRCODE = '22023';
  END IF;

  -- The partition lock orders segments: seq order, created_at order and commit order agree per partition.
  SELECT p.last_seq INTO v_last_seq FROM queen.partitions p WHERE p.id = p_partition_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'append_segment: partition % does not exist', p_partition_id USING ERRCODE = '22023';
  END IF;

  -- A caller that vouches for every message up to last_seq (p_after_seq) skips the scan.
  IF coalesce(p_after_seq, 0) < v_last_seq THEN
    SELECT array_agg(d.idx ORDER BY d.idx), array_agg(d.message_id ORDER BY d.idx)
      INTO duplicate_idx, duplicate_ids
      FROM queen_internal.segment_duplicates(p_partition_id, p_transaction_ids, p_after_seq, p_since) d;
  END IF;
  duplicate_idx := coalesce(duplicate_idx, '{}');
  duplicate_ids := coalesce(duplicate_ids, '{}');
  IF cardinality(duplicate_idx) = v_count THEN
    RETURN;
  END IF;

  base_seq := v_last_seq + 1;
  end_seq := v_last_seq + v_count - cardinality(duplicate_idx);
  IF cardinality(duplicate_idx) = 0 THEN
    INSERT INTO queen.segments (partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids,
                                payloads, trace_ids, encrypted)
    VALUES (p_partition_id, base_seq, end_seq, p_created_at, p_producer_sub, p_message_ids, p_transaction_ids, p_payloads,
            CASE WHEN array_remove(p_trace_ids, NULL) <> '{}' THEN p_trace_ids END,
            CASE WHEN true = ANY (p_encrypted) THEN p_encrypted END);
  ELSE
    v_keep := ARRAY(SELECT g FROM generate_series(1, v_count) g WHERE g <> ALL (duplicate_idx) ORDER BY g);
    INSERT INTO queen.segments (partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids,
                                payloads, trace_ids, encrypted)
    SELECT p_partition_id, append_segment.base_seq, append_segment.end_seq, p_created_at, p_producer_sub,
           array_agg(p_message_ids[k] ORDER BY k), array_agg(p_transaction_ids[k] ORDER BY k), array_agg(p_payloads[k] ORDER BY k),
           CASE WHEN bool_or(p_trace_ids[k] IS NOT NULL) THEN array_agg(p_trace_ids[k] ORDER BY k) END,
           CASE WHEN bool_or(p_encrypted[k]) THEN array_agg(coalesce(p_encrypted[k], false) ORDER BY k) END
      FROM unnest(v_keep) k;
  END IF;

  UPDATE queen.partitions p SET last_seq = append_segment.end_seq, last_message_at = p_created_at WHERE p.id = p_partition_id;
  -- The partition's cursor rows become pending (pop's work list); rows already pending are not written.
  UPDATE queen.consumers c SET pending = true WHERE c.partition_id = p_partition_id AND NOT c.pending;
END;
$function$;

COMMENT ON FUNCTION queen_internal.append_segment(p_partition_id uuid, p_created_at timestamp with time zone, p_producer_sub text, p_message_ids uuid[], p_transaction_ids text[], p_payloads text[], p_trace_ids uuid[], p_encrypted boolean[], p_after_seq bigint, p_since timestamp with time zone, OUT base_seq bigint, OUT end_seq bigint, OUT duplicate_idx integer[], OUT duplicate_ids uuid[]) IS 'The per-partition work of a push in the log engine: locks the partition, drops the messages whose transaction id the partition stored since p_since (queen_internal.segment_duplicates after p_after_seq; no scan when p_after_seq >= last_seq), stores the others as one segment base_seq..end_seq created at p_created_at, advances last_seq and marks the partition''s cursor rows pending. duplicate_idx are the positions (1-based) not stored, duplicate_ids the stored messages they duplicate; base_seq and end_seq are null when every message was a duplicate. p_trace_ids and p_encrypted may be null (none); the transaction ids of one call must be distinct (22023).';
