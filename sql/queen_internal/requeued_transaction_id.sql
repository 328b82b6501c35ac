CREATE OR REPLACE FUNCTION queen_internal.requeued_transaction_id(p_transaction_id text, p_message_id uuid)
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT left(p_transaction_id, 200) || '~requeue~' || p_message_id::text
$function$;

COMMENT ON FUNCTION queen_internal.requeued_transaction_id(p_transaction_id text, p_message_id uuid) IS 'transactionId of the requeued copy of dead message p_message_id: left(original, 200) || ''~requeue~'' || message id.';
