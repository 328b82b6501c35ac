CREATE OR REPLACE FUNCTION queen_internal.ack_item_rows(p_acks jsonb, p_tenant text)
 RETURNS TABLE(idx integer, txid text, lease_text text, status text, error_message text, partition_id uuid, seq bigint, last_seq bigint, partition_name text, queue_name text, retry_limit integer, retry_delay_ms integer)
 LANGUAGE plpgsql STABLE AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT (x.ord - 1)::int,
         x.e ->> 'transactionId',
         nullif(x.e ->> 'leaseId', ''),
         lower(coalesce(nullif(x.e ->> 'status', ''), 'completed')),
         nullif(x.e ->> 'error', ''),
         m.partition_id, m.seq, p.last_seq,
         p.name::text, q.name::text, q.retry_limit, q.retry_delay_ms
    FROM jsonb_array_elements(p_acks) WITH ORDINALITY AS x(e, ord)
    LEFT JOIN (queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant)
           ON p.id = queen_internal.uuid_or_null(x.e ->> 'partitionId')
    -- LATERAL with LIMIT: one probe on both columns of the unique key, whatever plan
    -- a connection cached while the table was small (docs/procedures.md, plans)
    LEFT JOIN LATERAL (SELECT m.partition_id, m.seq FROM queen.messages m
                        WHERE m.partition_id = p.id AND m.transaction_id = x.e ->> 'transactionId'
                        LIMIT 1) m ON true
   ORDER BY m.partition_id NULLS FIRST, m.seq, x.ord;
END;
$function$;

COMMENT ON FUNCTION queen_internal.ack_item_rows(p_acks jsonb, p_tenant text) IS 'Internal to ack_messages: the ack items with their message (partition, seq; null when not found in tenant p_tenant) and queue retry options, in partition id then seq order.';
