CREATE OR REPLACE FUNCTION queen_internal.segment_messages(p_partition_id uuid, p_after_seq bigint, p_max integer)
 RETURNS TABLE(seq bigint, message_id uuid, transaction_id text, payload text, trace_id uuid, producer_sub text, is_encrypted boolean, created_at timestamp with time zone)
 LANGUAGE sql STABLE AS $function$
  SELECT s.base_seq + e.ord - 1, e.message_id, e.transaction_id, e.payload, e.trace_id, s.producer_sub,
         coalesce(e.encrypted, false), s.created_at
    FROM (SELECT s.* FROM queen.segments s
           WHERE s.partition_id = p_partition_id AND s.payloads IS NOT NULL
             -- from the segment that holds p_after_seq + 1 (a primary-key probe), in primary-key order
             AND s.base_seq >= coalesce((SELECT h.base_seq FROM queen.segments h
                                          WHERE h.partition_id = p_partition_id AND h.base_seq <= p_after_seq + 1
                                          ORDER BY h.base_seq DESC LIMIT 1), 0)
           ORDER BY s.base_seq
           LIMIT p_max) s
   -- one unnest of all arrays: each is detoasted once per segment, not once per element
   CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.payloads, s.trace_ids, s.encrypted)
                      WITH ORDINALITY AS e(message_id, transaction_id, payload, trace_id, encrypted, ord)
   WHERE s.base_seq + e.ord - 1 > p_after_seq AND e.payload IS NOT NULL
   ORDER BY s.base_seq, e.ord
   LIMIT p_max
$function$;

COMMENT ON FUNCTION queen_internal.segment_messages(p_partition_id uuid, p_after_seq bigint, p_max integer) IS 'The log engine''s read: up to p_max messages of partition p_partition_id after seq p_after_seq, in seq order, one row each (payload as the stored JSON text); deleted messages and segments emptied by retention are skipped. Reads at most p_max segments from the one holding p_after_seq + 1, in primary-key order.';
