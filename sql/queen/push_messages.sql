CREATE OR REPLACE FUNCTION queen.push_messages(p_items jsonb, p_producer_sub text, p_tenant text)
 RETURNS SETOF queen.push_result
 LANGUAGE sql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT * FROM queen.push_with_dedup(p_items, p_producer_sub, p_tenant, NULL)
$function$;

COMMENT ON FUNCTION queen.push_messages(p_items jsonb, p_producer_sub text, p_tenant text) IS 'Stores into the queues of tenant p_tenant ('''' = default; another tenant''s queues are never touched) with producer p_producer_sub a batch of messages (JSON array of {queue, partition?, payload?, transactionId?, traceId?, namespace?, task?, encrypted?, keyHeld?, deliverAt?}) through store_messages; creates missing queues/partitions. Items whose deliverAt (ISO-8601 or epoch ms) is in the future are scheduled through schedule_messages instead (queued = scheduled; partition_id null until the partition exists); a past deliverAt is a plain push. One row per item (idx = 0-based position): queued (seq = its position in the partition), duplicate (message_id = the message pushed with that transactionId within the dedup window (queen_internal.dedup_window: the session''s queen.dedup_window_ms, else 24 hours)), failed (error, e.g. maxSize reached) or encryption_required (docs/encryption.md). Exact dedup under concurrency. 22023 on a malformed item.';
GRANT EXECUTE ON FUNCTION queen.push_messages(p_items jsonb, p_producer_sub text, p_tenant text) TO queen_admin, queen_broker;
