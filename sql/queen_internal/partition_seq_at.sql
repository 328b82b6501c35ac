CREATE OR REPLACE FUNCTION queen_internal.partition_seq_at(p_partition_id uuid, p_last_seq bigint, p_at timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_lo bigint := 0;
  v_hi bigint := coalesce(p_last_seq, 0);
  v_mid bigint;
  v_end bigint;
  v_at timestamptz;
BEGIN
  -- created_at grows with seq within a partition: a binary search over the segments' primary key
  WHILE v_lo < v_hi LOOP
    v_mid := v_lo + (v_hi - v_lo + 1) / 2;
    v_end := NULL;
    SELECT s.end_seq, s.created_at INTO v_end, v_at
      FROM queen.segments s WHERE s.partition_id = p_partition_id AND s.base_seq >= v_mid ORDER BY s.base_seq LIMIT 1;
    IF v_end IS NULL OR v_at > p_at THEN
      v_hi := v_mid - 1;
    ELSE
      v_lo := v_end;
    END IF;
  END LOOP;
  RETURN v_lo;
END;
$function$;

COMMENT ON FUNCTION queen_internal.partition_seq_at(p_partition_id uuid, p_last_seq bigint, p_at timestamp with time zone) IS 'The largest seq of the partition created at or before p_at (0 when none), in about log2(p_last_seq) primary-key probes.';
