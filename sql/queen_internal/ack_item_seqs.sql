CREATE OR REPLACE FUNCTION queen_internal.ack_item_seqs(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone)
 RETURNS TABLE(idx integer, txid text, lease_text text, status text, error_message text, partition_id uuid, seq bigint, last_seq bigint, partition_name text, queue_name text, retry_limit integer, retry_delay_ms integer)
 LANGUAGE plpgsql STABLE AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH items AS (
    SELECT (x.ord - 1)::int AS idx,
           x.e ->> 'transactionId' AS txid,
           nullif(x.e ->> 'leaseId', '') AS lease_text,
           lower(coalesce(nullif(x.e ->> 'status', ''), 'completed')) AS status,
           nullif(x.e ->> 'error', '') AS error_message,
           queen_internal.uuid_or_null(x.e ->> 'partitionId') AS partition_id
      FROM jsonb_array_elements(p_acks) WITH ORDINALITY AS x(e, ord)
  ), parts AS (
    -- the partitions named, of this tenant's queues only, with their items' positions and transaction ids
    SELECT pq.*, x.idxs, x.txids
      FROM (SELECT i.partition_id, array_agg(i.idx ORDER BY i.idx) AS idxs, array_agg(i.txid ORDER BY i.idx) AS txids
              FROM items i WHERE i.partition_id IS NOT NULL GROUP BY i.partition_id) x
      -- LATERAL with LIMIT: a probe of the partition's primary key, whatever plan a connection cached while the
      -- tables were small (a join could walk a queue's partitions by name instead)
      CROSS JOIN LATERAL (
        SELECT p.id, p.last_seq, p.name::text AS partition_name, q.name::text AS queue_name, q.retry_limit,
               q.retry_delay_ms
          FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant
         WHERE p.id = x.partition_id LIMIT 1) pq
  ), found AS (
    SELECT pa.id AS partition_id, pa.idxs[a.idx] AS idx, a.seq
      FROM parts pa CROSS JOIN LATERAL queen_internal.ack_seqs(pa.id, p_group, pa.txids, p_now) a
  )
  SELECT i.idx, i.txid, i.lease_text, i.status, i.error_message, f.partition_id, f.seq, pa.last_seq,
         pa.partition_name, pa.queue_name, pa.retry_limit, pa.retry_delay_ms
    FROM items i
    LEFT JOIN parts pa ON pa.id = i.partition_id
    LEFT JOIN found f ON f.idx = i.idx
   ORDER BY f.partition_id NULLS FIRST, f.seq, i.idx;
END;
$function$;

COMMENT ON FUNCTION queen_internal.ack_item_seqs(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone) IS 'Internal to ack_messages: the ack items of group p_group with their message (partition, seq; null when not found in tenant p_tenant, see queen_internal.ack_seqs) and queue retry options, in partition id then seq order.';
