-- Deploy queen:run_transaction to pg
BEGIN;

-- One ack operation of POST /transaction (docs/procedures.md, run_transaction): completed/success moves the
-- cursor (forward only) and releases the lease once the batch is passed; failed/dlq
-- dead-letter the message at once (no retries inside transactions), move the cursor
-- to it and release the whole lease. Business failures are returned, not raised.
CREATE FUNCTION queen.transaction_ack(p_op jsonb, p_now timestamptz, p_tenant text,
                                      OUT success bool, OUT error text, OUT dlq bool)
LANGUAGE plpgsql AS $$
DECLARE
  v_group text := coalesce(nullif(p_op ->> 'consumerGroup', ''), '__QUEUE_MODE__');
  v_status text := lower(coalesce(nullif(p_op ->> 'status', ''), 'completed'));
  v_lease_text text := nullif(p_op ->> 'leaseId', '');
  v_partition_id uuid := queen.uuid_or_null(p_op ->> 'partitionId');
  v_seq bigint;
  c queen.consumers;
BEGIN
  success := false; dlq := false;
  -- only a message of this tenant's queues: another tenant's is "not found"
  SELECT m.seq INTO v_seq FROM queen.messages m
    JOIN queen.partitions p ON p.id = m.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant
   WHERE m.partition_id = v_partition_id AND m.transaction_id = p_op ->> 'transactionId';
  IF v_seq IS NULL THEN
    error := 'Message not found'; RETURN;
  END IF;
  IF v_status NOT IN ('completed', 'success', 'failed', 'dlq') THEN
    error := 'Invalid status'; RETURN;
  END IF;
  PERFORM queen.ensure_consumer(v_partition_id, v_group);
  SELECT * INTO c FROM queen.consumers cc
   WHERE cc.partition_id = v_partition_id AND cc.consumer_group = v_group FOR UPDATE;
  IF v_lease_text IS NOT NULL
     AND NOT coalesce(queen.uuid_or_null(v_lease_text) = c.lease_id AND c.lease_expires_at > p_now, false) THEN
    error := 'Invalid or expired lease'; RETURN;
  END IF;

  IF v_status IN ('failed', 'dlq') THEN
    PERFORM queen.dead_letter(v_partition_id, v_seq, v_group, coalesce(nullif(p_op ->> 'error', ''), 'Unknown error'), 0);
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
$$;
COMMENT ON FUNCTION queen.transaction_ack(jsonb, timestamptz, text) IS
  'Internal to run_transaction: applies one ack operation of tenant p_tenant at p_now with transaction semantics (failed/dlq go straight to the DLQ, error default Unknown error). Returns success=false with Message not found / Invalid status / Invalid or expired lease instead of raising.';

CREATE FUNCTION queen.run_transaction(p_ops jsonb, p_producer_sub text, p_tenant text,
                                      p_now timestamptz DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen.tenant_arg(p_tenant);
  v_transaction_id uuid := queen.uuid_v7();
  v_ops jsonb;
  v_required jsonb;
  v_op jsonb;
  v_type text;
  v_lease_text text;
  v_ack record;
  v_item record;
  v_results jsonb := '[]'::jsonb;   -- plpgsql variables survive the rollback below
  v_index int := 0;
BEGIN
  IF jsonb_typeof(p_ops) = 'object' THEN
    v_ops := p_ops -> 'operations';
    v_required := p_ops -> 'requiredLeases';
  ELSE
    v_ops := p_ops;
  END IF;
  IF v_ops IS NULL OR jsonb_typeof(v_ops) <> 'array' THEN
    RAISE EXCEPTION 'operations array required' USING ERRCODE = '22023';
  END IF;
  IF jsonb_array_length(v_ops) = 0 THEN
    RAISE EXCEPTION 'operations array cannot be empty' USING ERRCODE = '22023';
  END IF;
  IF v_required IS NOT NULL AND jsonb_typeof(v_required) NOT IN ('array', 'null') THEN
    RAISE EXCEPTION 'requiredLeases must be an array' USING ERRCODE = '22023';
  END IF;

  -- All or nothing: a business failure raises QT001 inside this block, which rolls
  -- back every operation of the block; the caller gets success=false and the reason.
  BEGIN
    FOR v_lease_text IN SELECT jsonb_array_elements_text(coalesce(nullif(v_required, 'null'::jsonb), '[]'::jsonb)) LOOP
      IF NOT EXISTS (SELECT 1 FROM queen.consumers c
                       JOIN queen.partitions p ON p.id = c.partition_id
                       JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = v_tenant
                      WHERE c.lease_id = queen.uuid_or_null(v_lease_text) AND c.lease_expires_at > v_now) THEN
        RAISE EXCEPTION 'Required lease % is not held', v_lease_text USING ERRCODE = 'QT001';
      END IF;
    END LOOP;

    FOR v_op IN SELECT e FROM jsonb_array_elements(v_ops) e LOOP
      v_type := CASE WHEN jsonb_typeof(v_op) = 'object' THEN v_op ->> 'type' END;
      IF v_type = 'ack' THEN
        v_ack := queen.transaction_ack(v_op, v_now, v_tenant);
        IF NOT v_ack.success THEN
          RAISE EXCEPTION 'ACK operation failed: %', v_ack.error USING ERRCODE = 'QT001';
        END IF;
        v_results := v_results || jsonb_build_array(jsonb_build_object(
          'index', v_index, 'type', 'ack', 'success', true, 'transactionId', v_op ->> 'transactionId',
          'error', NULL, 'dlq', v_ack.dlq));
        v_index := v_index + 1;
      ELSIF v_type = 'push' THEN
        IF jsonb_typeof(v_op -> 'items') IS DISTINCT FROM 'array' THEN
          RAISE EXCEPTION 'PUSH operation failed: items array is required' USING ERRCODE = 'QT001';
        END IF;
        FOR v_item IN SELECT * FROM queen.push_messages(v_op -> 'items', p_producer_sub, v_tenant) ORDER BY idx LOOP
          IF v_item.status = 'duplicate' THEN
            -- transactions do not deduplicate: a taken transactionId aborts everything
            RAISE EXCEPTION 'PUSH operation failed: duplicate transactionId % in queue % partition %',
              v_item.transaction_id, v_item.queue_name, v_item.partition_name USING ERRCODE = 'QT001';
          ELSIF v_item.status <> 'queued' THEN
            RAISE EXCEPTION 'PUSH operation failed: %', v_item.error USING ERRCODE = 'QT001';
          END IF;
          v_results := v_results || jsonb_build_array(jsonb_build_object(
            'index', v_index, 'type', 'push', 'success', true, 'transactionId', v_item.transaction_id,
            'messageId', v_item.message_id, 'partitionId', v_item.partition_id, 'queueName', v_item.queue_name));
          v_index := v_index + 1;
        END LOOP;
      ELSE
        RAISE EXCEPTION 'Unknown operation type: %', coalesce(v_type, 'null') USING ERRCODE = 'QT001';
      END IF;
    END LOOP;
  EXCEPTION
    WHEN SQLSTATE 'QT001' OR invalid_parameter_value THEN
      RETURN jsonb_build_object('transactionId', v_transaction_id, 'success', false, 'error', SQLERRM,
                                'results', v_results);
  END;
  RETURN jsonb_build_object('transactionId', v_transaction_id, 'success', true, 'results', v_results);
END;
$$;
COMMENT ON FUNCTION queen.run_transaction(jsonb, text, text, timestamptz) IS
  'POST /transaction: runs ack and push operations of tenant p_tenant ('''' = default; pushes stamped with producer p_producer_sub) in order, all or nothing. p_ops is the request body {operations, requiredLeases?} (or the bare operations array). Returns {transactionId, success, results[, error]}; success=false (everything rolled back) when a required lease is not held, an ack fails (Message not found, Invalid or expired lease, Invalid status), a pushed transactionId already exists, an item fails (maxSize) or an operation type is unknown. Leases are judged at p_now (null = now()). 22023 when operations is missing or empty.';

COMMIT;
