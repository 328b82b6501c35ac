CREATE OR REPLACE FUNCTION queen_internal.segment_duplicates(p_partition_id uuid, p_transaction_ids text[], p_after_seq bigint, p_since timestamp with time zone)
 RETURNS TABLE(idx integer, seq bigint, message_id uuid)
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_from bigint;  -- base_seq of the oldest segment to read
  r record;
BEGIN
  -- Newest first, reading only the segment heads (no array is fetched), until a segment is entirely at or
  -- below p_after_seq or older than the window: created_at grows with seq within a partition, so the walk
  -- reads the window and nothing before it.
  FOR r IN SELECT s.base_seq, s.end_seq, s.created_at FROM queen.segments s
            WHERE s.partition_id = p_partition_id ORDER BY s.base_seq DESC LOOP
    EXIT WHEN r.end_seq <= coalesce(p_after_seq, 0) OR r.created_at < p_since;
    v_from := r.base_seq;
  END LOOP;
  -- The dedup tombstones of a database upgraded from 1.1.0 (messages retention deleted before the upgrade), until
  -- they expire: one probe of their key per transaction id, only while the partition has one.
  IF p_after_seq IS NULL AND EXISTS (SELECT 1 FROM queen.dedup_tombstones t WHERE t.partition_id = p_partition_id) THEN
    RETURN QUERY
    SELECT i.idx::int, NULL::bigint, t.message_id
      FROM unnest(p_transaction_ids) WITH ORDINALITY AS i(transaction_id, idx)
      JOIN queen.dedup_tombstones t ON t.partition_id = p_partition_id AND t.transaction_id = i.transaction_id
     WHERE t.expires_at > clock_timestamp();
  END IF;
  IF v_from IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT DISTINCT ON (i.idx) i.idx::int, w.seq, w.message_id
    FROM unnest(p_transaction_ids) WITH ORDINALITY AS i(transaction_id, idx)
    JOIN (SELECT s.base_seq + e.ord - 1 AS seq, e.transaction_id, e.message_id
            FROM queen.segments s
           CROSS JOIN LATERAL unnest(s.transaction_ids, s.message_ids) WITH ORDINALITY AS e(transaction_id, message_id, ord)
           WHERE s.partition_id = p_partition_id AND s.base_seq >= v_from) w ON w.transaction_id = i.transaction_id
   ORDER BY i.idx, w.seq;
END;
$function$;

COMMENT ON FUNCTION queen_internal.segment_duplicates(p_partition_id uuid, p_transaction_ids text[], p_after_seq bigint, p_since timestamp with time zone) IS 'The dedup scan of the log engine: for each p_transaction_ids[idx] already stored in partition p_partition_id by a segment created at or after p_since that holds a message after p_after_seq (null = from the start), the first such message (seq, message_id). Reads only the segments of that window, newest first; p_after_seq is what the caller already knows to hold none of them (a broker''s vouched seq), so a call with p_after_seq at the partition''s last seq reads one segment head. Without p_after_seq, the unexpired dedup tombstones of an upgraded 1.1.0 database count too (seq null).';
