CREATE OR REPLACE FUNCTION queen_internal.transaction_ack(p_op jsonb, p_now timestamp with time zone, p_tenant text, OUT success boolean, OUT error text, OUT dlq boolean)
 RETURNS record
 LANGUAGE plpgsql AS $function$
DECLARE
  v_group text := queen_internal.group_or_queue_mode(p_op ->> 'consumerGroup');
  v_status text := lower(coalesce(nullif(p_op ->> 'status', ''), 'completed'));
  v_lease_text text := nullif(p_op ->> 'leaseId', '');
  v_partition_id uuid := queen_internal.uuid_or_null(p_op ->> 'partitionId');
  v_seq bigint;
  c queen.consumers;
BEGIN
  success := false; dlq := false;
  -- only a message of this tenant's queues: another tenant's is "not found"
  SELECT a.seq INTO v_seq FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant
   CROSS JOIN LATERAL queen_internal.ack_seqs(p.id, v_group, ARRAY[p_op ->> 'transactionId'], p_now) a
   WHERE p.id = v_partition_id;
  IF v_seq IS NULL THEN
    error := 'Message not found'; RETURN;
  END IF;
  IF v_status NOT IN ('completed', 'success', 'failed', 'dlq') THEN
    error := 'Invalid status'; RETURN;
  END IF;
  PERFORM queen_internal.ensure_consumer(v_partition_id, v_group);
  SELECT * INTO c FROM queen.consumers cc
   WHERE cc.partition_id = v_partition_id AND cc.consumer_group = v_group FOR UPDATE;
  IF v_lease_text IS NOT NULL
     AND NOT coalesce(queen_internal.uuid_or_null(v_lease_text) = c.lease_id AND c.lease_expires_at > p_now, false) THEN
    error := 'Invalid or expired lease'; RETURN;
  END IF;

  IF v_status IN ('failed', 'dlq') THEN
    PERFORM queen_internal.dead_letter(v_partition_id, v_seq, v_group, coalesce(nullif(p_op ->> 'error', ''), 'Unknown error'), 0);
    dlq := true;
  END IF;
  UPDATE queen.consumers t
     SET cursor_seq = greatest(t.cursor_seq, v_seq),
         total_consumed = t.total_consumed + greatest(v_seq - t.cursor_seq, 0),
         last_consumed_at = CASE WHEN v_seq > t.cursor_seq THEN p_now ELSE t.last_consumed_at END,
         lease_acked = t.lease_acked + CASE WHEN t.lease_id IS NOT NULL AND v_seq > t.cursor_seq THEN 1 ELSE 0 END,
         -- failed/dlq release the whole lease; completed releases it once the batch is passed
         lease_id = CASE WHEN dlq OR greatest(t.cursor_seq, v_seq) >= t.lease_max_seq THEN NULL ELSE t.lease_id END,
         lease_expires_at = CASE WHEN dlq OR greatest(t.cursor_seq, v_seq) >= t.lease_max_seq THEN NULL ELSE t.lease_expires_at END,
         retry_count = CASE WHEN NOT dlq AND t.lease_id IS NOT NULL AND greatest(t.cursor_seq, v_seq) >= t.lease_max_seq
                            THEN 0 ELSE t.retry_count END
   WHERE t.partition_id = v_partition_id AND t.consumer_group = v_group;
  success := true;
END;
$function$;

COMMENT ON FUNCTION queen_internal.transaction_ack(p_op jsonb, p_now timestamp with time zone, p_tenant text, OUT success boolean, OUT error text, OUT dlq boolean) IS 'Internal to run_transaction: applies one ack operation of tenant p_tenant at p_now with transaction semantics (failed/dlq go straight to the DLQ, error default Unknown error). Returns success=false with Message not found / Invalid status / Invalid or expired lease instead of raising.';
