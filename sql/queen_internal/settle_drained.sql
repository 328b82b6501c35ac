CREATE OR REPLACE FUNCTION queen_internal.settle_drained(p_group text, p_partition_ids uuid[])
 RETURNS integer
 LANGUAGE plpgsql AS $function$
DECLARE
  v_locked uuid[];
  v_settled int;
BEGIN
  IF coalesce(cardinality(p_partition_ids), 0) = 0 THEN
    RETURN 0;
  END IF;
  SELECT array_agg(x.partition_id) INTO v_locked
    FROM (SELECT c.partition_id
            FROM queen.consumers c
            -- a probe of the partition's key per row, whatever plan a connection cached while the table was small
            -- (a join could walk every partition)
            CROSS JOIN LATERAL (SELECT p.id FROM queen.partitions p WHERE p.id = c.partition_id
                                   FOR SHARE SKIP LOCKED) p
           WHERE c.partition_id = ANY (p_partition_ids) AND c.consumer_group = p_group AND c.pending
           ORDER BY c.partition_id
             FOR UPDATE OF c SKIP LOCKED) x;
  IF v_locked IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE queen.consumers c
     SET pending = false
   WHERE c.partition_id = ANY (v_locked) AND c.consumer_group = p_group
     AND NOT EXISTS (SELECT 1 FROM queen_internal.segment_messages(c.partition_id, c.cursor_seq, 1));
  GET DIAGNOSTICS v_settled = ROW_COUNT;
  RETURN v_settled;
END;
$function$;

COMMENT ON FUNCTION queen_internal.settle_drained(p_group text, p_partition_ids uuid[]) IS 'Clears consumers.pending of group p_group on the given partitions where no message follows the cursor; skips (leaves pending) rows or partitions locked by others, so it never waits. Returns how many it cleared.';
