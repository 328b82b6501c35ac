CREATE OR REPLACE FUNCTION queen.dedup_keys(p_partition_id uuid, p_after_seq bigint, p_window_ms bigint, p_limit integer, p_tenant text)
 RETURNS TABLE(seq bigint, transaction_id text)
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
#variable_conflict use_column
DECLARE
  v_since timestamptz := clock_timestamp() - p_window_ms * interval '1 millisecond';
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('windowMs', p_window_ms, 0);
  IF NOT EXISTS (SELECT 1 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                  WHERE p.id = p_partition_id AND q.tenant = queen_internal.tenant_arg(p_tenant)) THEN
    RETURN;
  END IF;
  RETURN QUERY
  (SELECT s.base_seq + e.ord - 1, e.transaction_id
     FROM queen.segments s
    CROSS JOIN LATERAL unnest(s.transaction_ids) WITH ORDINALITY AS e(transaction_id, ord)
    WHERE s.partition_id = p_partition_id AND s.created_at >= v_since
      AND s.base_seq >= queen_internal.segment_head(p_partition_id, coalesce(p_after_seq, 0) + 1)
      AND s.base_seq + e.ord - 1 > coalesce(p_after_seq, 0) AND e.transaction_id IS NOT NULL
   UNION ALL
   -- the unexpired dedup tombstones of a database upgraded from 1.1.0 (no seq)
   SELECT NULL::bigint, t.transaction_id FROM queen.dedup_tombstones t
    WHERE p_after_seq IS NULL AND t.partition_id = p_partition_id AND t.expires_at > clock_timestamp())
  LIMIT p_limit;
END;
$function$;

COMMENT ON FUNCTION queen.dedup_keys(p_partition_id uuid, p_after_seq bigint, p_window_ms bigint, p_limit integer, p_tenant text) IS 'The transaction ids partition p_partition_id (of tenant p_tenant, else none) holds after seq p_after_seq (null = all, with the unexpired dedup tombstones of an upgraded 1.1.0 database, seq null) among the messages pushed in the last p_window_ms, at most p_limit: what a broker loads to answer for a partition''s dedup window (docs/storage.md). 22023 on limit < 1 or windowMs < 0.';
GRANT EXECUTE ON FUNCTION queen.dedup_keys(p_partition_id uuid, p_after_seq bigint, p_window_ms bigint, p_limit integer, p_tenant text) TO queen_admin, queen_broker;
