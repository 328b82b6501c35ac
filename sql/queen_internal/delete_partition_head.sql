CREATE OR REPLACE FUNCTION queen_internal.delete_partition_head(p_partition_id uuid, p_cutoff timestamp with time zone, p_max_seq bigint, p_batch integer, p_tombstone_until timestamp with time zone)
 RETURNS integer
 LANGUAGE sql AS $function$
  WITH head AS (
    SELECT m.seq, m.created_at FROM queen.messages m
     WHERE m.partition_id = p_partition_id AND (p_max_seq IS NULL OR m.seq <= p_max_seq)
     ORDER BY m.seq
     LIMIT p_batch
  ), deleted AS (
    DELETE FROM queen.messages m
     USING head h
     WHERE m.partition_id = p_partition_id AND m.seq = h.seq AND h.created_at < p_cutoff
    RETURNING m.partition_id, m.transaction_id, m.id
  ), tombstones AS (
    INSERT INTO queen.dedup_tombstones AS t (partition_id, transaction_id, message_id, expires_at)
    SELECT d.partition_id, d.transaction_id, d.id, p_tombstone_until FROM deleted d
    ON CONFLICT ON CONSTRAINT dedup_tombstones_pkey DO UPDATE
       SET message_id = EXCLUDED.message_id, expires_at = greatest(t.expires_at, EXCLUDED.expires_at)
    RETURNING 1
  )
  SELECT count(*)::int FROM tombstones
$function$;

COMMENT ON FUNCTION queen_internal.delete_partition_head(p_partition_id uuid, p_cutoff timestamp with time zone, p_max_seq bigint, p_batch integer, p_tombstone_until timestamp with time zone) IS 'Internal to apply_retention: deletes up to p_batch of the oldest messages of a partition created before p_cutoff (and seq <= p_max_seq when given), leaving dedup tombstones. Returns the count.';
