CREATE OR REPLACE FUNCTION queen.ack_messages(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(idx integer, transaction_id text, success boolean, error text, queue_name text, partition_name text, lease_released boolean, dlq boolean)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
#variable_conflict use_column
DECLARE
  v_group text := queen_internal.group_or_queue_mode(p_group);
  v_tenant text := queen_internal.tenant_arg(p_tenant);
BEGIN
  PERFORM queen_internal.check_ack_items(p_acks);

  -- No group named: a consumer that popped with a group and acks without
  -- naming it is recognised by its lease.
  IF nullif(p_group, '') IS NULL THEN
    v_group := coalesce(queen_internal.ack_lease_group(p_acks, v_tenant), v_group);
  END IF;

  RETURN QUERY
  SELECT a.idx, a.transaction_id, a.success, a.error, a.queue_name, a.partition_name, a.lease_released, a.dlq
    FROM queen_internal.apply_acks(p_acks, v_group, v_tenant, coalesce(p_now, now())) a
   ORDER BY a.idx;
END;
$function$;

COMMENT ON FUNCTION queen.ack_messages(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone) IS 'Applies acks [{transactionId, partitionId, leaseId?, status?, error?}] of tenant p_tenant ('''' = default; a partition of another tenant''s queue answers Message not found) for group p_group (null = the group holding the given leaseId, else queue mode). completed/success move the cursor forward; failed releases the batch (one retry per batch, retryDelay gate) or dead-letters it once retryLimit is spent; dlq dead-letters; retry releases without spending a retry. One row per item, in request order: Message not found / Invalid or expired lease / Invalid status are per-item failures. Leases and the retryDelay gate are judged at p_now (null = now()).';
GRANT EXECUTE ON FUNCTION queen.ack_messages(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
