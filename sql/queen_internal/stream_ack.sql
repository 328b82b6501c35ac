-- The source ack of a cycle: queen_internal.transaction_ack (the ack of POST /transaction:
-- the message by (transactionId, partition), the lease fence, the cursor moving
-- forward only, failed/dlq dead-lettered at once) followed by the lease release
-- the cycle asks for. Raises QS001 with the reason on a failed ack.
CREATE OR REPLACE FUNCTION queen_internal.stream_ack(p_ack jsonb, p_partition_id uuid, p_group text, p_release boolean, p_now timestamp with time zone, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql AS $function$
DECLARE
  v_status text := lower(coalesce(nullif(p_ack ->> 'status', ''), 'completed'));
  v_count bigint := CASE WHEN jsonb_typeof(p_ack -> 'count') = 'number' THEN (p_ack ->> 'count')::numeric::bigint ELSE 1 END;
  v_ack record;
  v_released bool := false;
BEGIN
  IF jsonb_typeof(p_ack -> 'transactionId') IS DISTINCT FROM 'string' OR p_ack ->> 'transactionId' = '' THEN
    RAISE EXCEPTION 'ack.transactionId is required' USING ERRCODE = 'QS001';
  END IF;
  IF v_status NOT IN ('completed', 'success', 'failed', 'dlq') THEN
    RAISE EXCEPTION 'Unknown ack.status: %', p_ack ->> 'status' USING ERRCODE = 'QS001';
  END IF;
  v_ack := queen_internal.transaction_ack(jsonb_build_object(
             'transactionId', p_ack ->> 'transactionId', 'partitionId', p_partition_id, 'consumerGroup', p_group,
             'leaseId', p_ack ->> 'leaseId', 'status', v_status,
             'error', coalesce(nullif(p_ack ->> 'error', ''), 'Streaming cycle reported failure')), p_now, p_tenant);
  IF NOT v_ack.success THEN
    RAISE EXCEPTION '%', v_ack.error USING ERRCODE = 'QS001';
  END IF;
  IF NOT v_ack.dlq AND p_release THEN
    -- transaction_ack releases the lease once the leased batch is passed; a
    -- cycle asking for the release also gives back a lease it acked only part of
    UPDATE queen.consumers c SET lease_id = NULL, lease_expires_at = NULL
     WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group AND c.lease_id IS NOT NULL;
    v_released := true;
  END IF;
  -- failed/dlq: transaction_ack dead-lettered the message and cleared the lease
  RETURN jsonb_build_object('success', true, 'count', CASE WHEN v_ack.dlq THEN 0 ELSE v_count END,
                            'lease_released', v_released OR v_ack.dlq, 'dlq', v_ack.dlq);
END;
$function$;

COMMENT ON FUNCTION queen_internal.stream_ack(p_ack jsonb, p_partition_id uuid, p_group text, p_release boolean, p_now timestamp with time zone, p_tenant text) IS 'Internal to stream_cycle: the source ack {transactionId, leaseId?, status? (completed|success|failed|dlq), count?, error?} of partition p_partition_id for group p_group through queen_internal.transaction_ack, then (completed, p_release) the lease cleared. Raises QS001 with Message not found / Invalid or expired lease / Unknown ack.status.';
