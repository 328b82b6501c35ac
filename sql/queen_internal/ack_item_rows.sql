CREATE OR REPLACE FUNCTION queen_internal.ack_item_rows(p_acks jsonb, p_tenant text)
 RETURNS TABLE(idx integer, txid text, lease_text text, status text, error_message text, partition_id uuid, seq bigint, last_seq bigint, partition_name text, queue_name text, retry_limit integer, retry_delay_ms integer)
 LANGUAGE sql STABLE AS $function$
  SELECT * FROM queen_internal.ack_item_seqs(p_acks, queen_internal.queue_mode_group(), p_tenant, now())
$function$;

COMMENT ON FUNCTION queen_internal.ack_item_rows(p_acks jsonb, p_tenant text) IS 'queen_internal.ack_item_seqs for queue mode at now(): the signature release 1.1.0 verifies.';
