CREATE OR REPLACE FUNCTION queen_internal.segment_messages_desc(p_partition_id uuid, p_low_seq bigint, p_high_seq bigint)
 RETURNS TABLE(seq bigint, message_id uuid, transaction_id text, trace_id uuid, producer_sub text, is_encrypted boolean, created_at timestamp with time zone)
 LANGUAGE sql STABLE AS $function$
  -- newest first without a sort of the range: the segments by the primary key backwards, each one's messages
  -- sorted on their own, so a LIMIT of the caller stops the walk whatever the plan's estimates
  SELECT s.base_seq + e.ord - 1, e.message_id, e.transaction_id, e.trace_id, s.producer_sub,
         coalesce(e.encrypted, false), s.created_at
    FROM (SELECT s.* FROM queen.segments s
           WHERE s.partition_id = p_partition_id AND s.payloads IS NOT NULL
             AND s.base_seq <= p_high_seq AND s.base_seq >= queen_internal.segment_head(p_partition_id, p_low_seq)
           ORDER BY s.base_seq DESC) s
   CROSS JOIN LATERAL (
     -- without the payloads (a listing shows none): a deleted message is one without a transaction id
     SELECT e.* FROM unnest(s.message_ids, s.transaction_ids, s.trace_ids, s.encrypted)
                     WITH ORDINALITY AS e(message_id, transaction_id, trace_id, encrypted, ord)
      WHERE s.base_seq + e.ord - 1 BETWEEN p_low_seq AND p_high_seq AND e.transaction_id IS NOT NULL
      ORDER BY e.ord DESC) e
$function$;

COMMENT ON FUNCTION queen_internal.segment_messages_desc(p_partition_id uuid, p_low_seq bigint, p_high_seq bigint) IS 'The messages of partition p_partition_id with seq in [p_low_seq, p_high_seq], newest first, one row each, without payloads (listings); deleted messages and emptied segments are skipped. A walk of the primary key backwards that a LIMIT of the caller stops.';
