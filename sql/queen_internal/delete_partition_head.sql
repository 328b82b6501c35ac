CREATE OR REPLACE FUNCTION queen_internal.delete_partition_head(p_partition_id uuid, p_cutoff timestamp with time zone, p_max_seq bigint, p_batch integer, p_remember_since timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql AS $function$
DECLARE
  v_removed bigint;
  v_count int := 0;
  v_deleted bigint[] := '{}';
  v_emptied bigint[] := '{}';
  r record;
BEGIN
  SELECT p.removed_seq INTO v_removed FROM queen.partitions p WHERE p.id = p_partition_id;
  -- 1. From the head: segments pushed before the dedup window go, emptied ones and those the rule removes.
  --    created_at and seq grow together, so the walk stops at the first segment that stays.
  FOR r IN SELECT s.base_seq, s.end_seq, s.created_at, s.payloads IS NULL AS emptied FROM queen.segments s
            WHERE s.partition_id = p_partition_id ORDER BY s.base_seq LOOP
    EXIT WHEN v_count >= p_batch OR r.created_at >= p_remember_since
           OR NOT (r.emptied OR (r.created_at < p_cutoff AND (p_max_seq IS NULL OR r.end_seq <= p_max_seq)));
    v_deleted := v_deleted || r.base_seq;
    v_count := v_count + CASE WHEN r.emptied THEN 1 ELSE (r.end_seq - r.base_seq + 1)::int END;
    v_removed := greatest(v_removed, r.end_seq);
  END LOOP;
  -- 2. After the watermark: segments the rule removes that the dedup window still needs are emptied (their
  --    transaction and message ids stay until the window passes).
  FOR r IN SELECT s.base_seq, s.end_seq, s.created_at FROM queen.segments s
            WHERE s.partition_id = p_partition_id AND s.base_seq > v_removed
            ORDER BY s.base_seq LOOP
    EXIT WHEN v_count >= p_batch OR r.created_at >= p_cutoff OR (p_max_seq IS NOT NULL AND r.end_seq > p_max_seq);
    v_emptied := v_emptied || r.base_seq;
    v_count := v_count + (r.end_seq - r.base_seq + 1)::int;
    v_removed := greatest(v_removed, r.end_seq);
  END LOOP;
  -- Traces go with their messages, as they went with a message row: those of every segment this removes that still
  -- held its messages (an emptied segment's went when it was emptied).
  DELETE FROM queen.message_traces t
   USING queen.segments s
   WHERE s.partition_id = p_partition_id AND s.base_seq = ANY (v_deleted || v_emptied) AND s.payloads IS NOT NULL
     AND t.partition_id = p_partition_id AND t.transaction_id = ANY (s.transaction_ids);
  IF cardinality(v_deleted) > 0 THEN
    DELETE FROM queen.segments s WHERE s.partition_id = p_partition_id AND s.base_seq = ANY (v_deleted);
  END IF;
  IF cardinality(v_emptied) > 0 THEN
    UPDATE queen.segments s SET payloads = NULL, trace_ids = NULL, encrypted = NULL
     WHERE s.partition_id = p_partition_id AND s.base_seq = ANY (v_emptied) AND s.payloads IS NOT NULL;
  END IF;
  UPDATE queen.partitions p SET removed_seq = v_removed WHERE p.id = p_partition_id AND p.removed_seq < v_removed;
  RETURN v_count;
END;
$function$;

COMMENT ON FUNCTION queen_internal.delete_partition_head(p_partition_id uuid, p_cutoff timestamp with time zone, p_max_seq bigint, p_batch integer, p_remember_since timestamp with time zone) IS 'Internal to apply_retention: removes the oldest whole segments of a partition created before p_cutoff (and ending at or before p_max_seq when given), up to about p_batch messages: deleted when pushed before p_remember_since, else emptied (payloads gone, transaction ids kept for dedup); deletes emptied segments once pushed before p_remember_since; deletes the traces of the messages it removes; advances partitions.removed_seq. Returns the messages (and emptied segments) removed.';
