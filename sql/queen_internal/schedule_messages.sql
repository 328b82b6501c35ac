CREATE OR REPLACE FUNCTION queen_internal.schedule_messages(p_items jsonb, p_producer_sub text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql AS $function$
DECLARE
  v_tenant  text := queen_internal.tenant_arg(p_tenant);
  v_items   queen.schedule_item[];
BEGIN
  PERFORM queen_internal.check_schedule_items(p_items);
  v_items := queen_internal.parse_schedule_items(p_items, v_tenant);
  IF v_items IS NULL THEN
    RETURN;  -- an empty array
  END IF;

  PERFORM queen_internal.insert_new_timers(v_items, v_tenant, p_producer_sub);

  -- A new statement, so it sees timers committed by a concurrent winner too.
  -- queued: the timer row holds this item's own id. Everything else is a
  -- duplicate answered with the winning id (a timer, or a message stored within the dedup window).
  RETURN QUERY
  SELECT s.idx,
         CASE WHEN s.refused THEN 'encryption_required'
              WHEN t.message_id = s.new_message_id THEN 'queued' ELSE 'duplicate' END,
         -- scalar probes on both key columns, as in store_messages: a cached join plan could
         -- probe by partition alone
         CASE WHEN NOT s.refused
              THEN coalesce(t.message_id,
                            (SELECT d.message_id FROM queen_internal.segment_duplicates(
                                      p.id, ARRAY[s.transaction_id], NULL, clock_timestamp() - queen_internal.dedup_window(NULL)) d)) END,
         s.transaction_id, p.id, s.queue_name, s.partition_name,
         CASE WHEN s.refused AND NOT s.is_encrypted AND NOT coalesce((p_items -> s.idx ->> 'keyHeld')::bool, false)
              THEN format('queue %s has encryptionEnabled: plaintext refused, and the caller holds no encryption key'
                          ' (the item is not keyHeld): push it through a broker with QUEEN_ENCRYPTION_KEY', s.queue_name)
              WHEN s.refused
              THEN format('queue %s has encryptionEnabled: plaintext refused, the broker must encrypt', s.queue_name)
         END,
         NULL::bigint  -- a timer has no seq before it fires
    FROM unnest(v_items) s
    LEFT JOIN queen.timers t
           ON t.tenant = v_tenant AND t.queue_name = s.queue_name AND t.partition_name = s.partition_name
          AND t.transaction_id = s.transaction_id
    LEFT JOIN queen.queues q ON q.tenant = v_tenant AND q.name = s.queue_name
    LEFT JOIN queen.partitions p ON p.queue_id = q.id AND p.name = s.partition_name
   ORDER BY s.idx;
END;
$function$;

COMMENT ON FUNCTION queen_internal.schedule_messages(p_items jsonb, p_producer_sub text, p_tenant text) IS 'Schedules for tenant p_tenant ('''' = default) push items that carry deliverAt (ISO-8601 or epoch ms) as timers, fired into the queue at or after that time. Same result columns as push_messages: queued (message_id = the id the message will have) or duplicate (a pending timer, or a message stored within the dedup window, has the transactionId in that queue/partition, or an earlier item of the call), or encryption_required as in store_messages (every plaintext item of an encryptionEnabled queue; with keyHeld, every item of its partition). partition_id is null until the partition exists. 22023 on a malformed item or a missing/unparsable deliverAt.';
