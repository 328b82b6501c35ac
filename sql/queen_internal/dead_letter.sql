CREATE OR REPLACE FUNCTION queen_internal.dead_letter(p_partition_id uuid, p_seq bigint, p_group text, p_error text, p_retry_count integer)
 RETURNS void
 LANGUAGE sql AS $function$
  SELECT pg_advisory_xact_lock(hashtextextended('queen.dead_letter:' || p_partition_id || ':' || p_seq, 0));
  INSERT INTO queen.dlq_payloads AS x (message_id, partition_id, payload, payload_bytes)
  SELECT m.message_id, p_partition_id, m.payload::jsonb, octet_length(m.payload)
    FROM queen_internal.segment_messages(p_partition_id, p_seq - 1, 1) m
   WHERE m.seq = p_seq
  ON CONFLICT (message_id) DO UPDATE SET payload_bytes = x.payload_bytes;
  INSERT INTO queen.dlq AS d (message_id, consumer_group, partition_id, seq, transaction_id, trace_id,
                              producer_sub, is_encrypted, error_message, retry_count, message_created_at, failed_at)
  SELECT m.message_id, p_group, p_partition_id, m.seq, m.transaction_id, m.trace_id, m.producer_sub,
         m.is_encrypted, p_error, p_retry_count, m.created_at, clock_timestamp()
    FROM queen_internal.segment_messages(p_partition_id, p_seq - 1, 1) m
   WHERE m.seq = p_seq
  ON CONFLICT ON CONSTRAINT dlq_pkey DO UPDATE
     SET error_message = EXCLUDED.error_message, retry_count = EXCLUDED.retry_count, failed_at = EXCLUDED.failed_at
$function$;

COMMENT ON FUNCTION queen_internal.dead_letter(p_partition_id uuid, p_seq bigint, p_group text, p_error text, p_retry_count integer) IS 'Dead-letters one message for one consumer group (payload stored once per message in queen.dlq_payloads); a repeat refreshes error, retry count and failure time.';
