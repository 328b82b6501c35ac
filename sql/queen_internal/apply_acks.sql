CREATE OR REPLACE FUNCTION queen_internal.apply_acks(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone)
 RETURNS TABLE(idx integer, transaction_id text, success boolean, error text, queue_name text, partition_name text, lease_released boolean, dlq boolean)
 LANGUAGE plpgsql AS $function$
#variable_conflict use_column
DECLARE
  r record;                       -- an item (ack_item_seqs)
  c queen.consumers;              -- working copy of the locked cursor row
  v_partition_id uuid;            -- partition whose row is in c
  v_last_seq bigint;              -- its last seq as the item query read it
  v_start_cursor bigint;
  v_start_lease_id uuid;          -- lease at request start, null if none or expired
  v_start_failed_lease_id uuid;
  v_failed_here bool;             -- a failed ack of this request already released the batch
  v_cap bigint;                   -- the cursor may not pass this seq (first failed/retried message - 1)
  v_lease_given uuid;
  v_action text;
  v_drained uuid[] := '{}';       -- partitions whose cursor reached v_last_seq: settled at the end
BEGIN
  -- One item at a time, partition by partition (ack_item_seqs: the lock order).
  FOR r IN SELECT * FROM queen_internal.ack_item_seqs(p_acks, p_group, p_tenant, p_now)
  LOOP
    IF r.seq IS NOT NULL AND r.partition_id IS DISTINCT FROM v_partition_id THEN
      -- next partition: store the previous one, lock and load this one
      IF v_partition_id IS NOT NULL AND queen_internal.store_ack_state(c, v_start_cursor, p_now, v_last_seq) THEN
        v_drained := v_drained || v_partition_id;
      END IF;
      v_partition_id := r.partition_id; v_last_seq := r.last_seq;
      c := queen_internal.lock_ack_cursor(v_partition_id, p_group);
      v_start_cursor := c.cursor_seq; v_start_failed_lease_id := c.failed_lease_id;
      v_start_lease_id := CASE WHEN c.lease_expires_at > p_now THEN c.lease_id END;
      v_failed_here := false; v_cap := NULL;
    END IF;
    v_lease_given := queen_internal.uuid_or_null(r.lease_text);
    error := queen_internal.ack_item_error(r.seq, r.status, r.lease_text, v_lease_given, v_start_lease_id, v_start_failed_lease_id);
    v_action := CASE WHEN error IS NULL THEN queen_internal.ack_item_action(r.status, r.seq, c.cursor_seq, c.retry_count,
      r.retry_limit, v_failed_here, v_lease_given, v_start_lease_id, v_start_failed_lease_id) END;
    lease_released := false; dlq := false;
    IF v_action IN ('give back', 'fail') THEN
      -- the cursor stops before this message and the batch is released
      v_cap := least(coalesce(v_cap, r.seq - 1), r.seq - 1);
      v_failed_here := v_failed_here OR v_action = 'fail';
      lease_released := c.lease_id IS NOT NULL;
      IF lease_released OR v_action = 'fail' THEN
        c := queen_internal.release_ack_batch(c, v_action = 'fail', p_now + r.retry_delay_ms * interval '1 millisecond');
      END IF;
    ELSIF v_action = 'consume' THEN
      IF r.status IN ('dlq', 'failed') AND r.seq > c.cursor_seq THEN
        PERFORM queen_internal.dead_letter(r.partition_id, r.seq, p_group,
                                           coalesce(r.error_message, 'Retries exhausted'), c.retry_count);
        dlq := true;
      END IF;
      IF r.seq > c.cursor_seq AND (v_cap IS NULL OR r.seq <= v_cap) AND c.lease_id IS NOT NULL THEN
        c.lease_acked := c.lease_acked + 1;
      END IF;
      -- forward only, and never past a message this request failed or retried
      c.cursor_seq := greatest(c.cursor_seq, least(r.seq, coalesce(v_cap, r.seq)));
      IF c.lease_id IS NOT NULL AND c.cursor_seq >= c.lease_max_seq THEN
        -- the whole batch is consumed: release it and forget its retries
        c.lease_id := NULL; c.lease_expires_at := NULL; c.retry_count := 0; lease_released := true;
      END IF;
    END IF;
    idx := r.idx; transaction_id := r.txid; success := error IS NULL;
    queue_name := r.queue_name; partition_name := r.partition_name;
    RETURN NEXT;
  END LOOP;
  IF v_partition_id IS NOT NULL AND queen_internal.store_ack_state(c, v_start_cursor, p_now, v_last_seq) THEN
    v_drained := v_drained || v_partition_id;
  END IF;
  -- pop's work list: a partition this request consumed to the end is no longer pending
  IF cardinality(v_drained) > 0 THEN
    PERFORM queen_internal.settle_drained(p_group, v_drained);
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.apply_acks(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone) IS 'Internal to ack_messages: applies the ack items of tenant p_tenant for group p_group at p_now, partition by partition in lock order (each cursor row locked, changed in memory, stored once), settles the partitions consumed to their end, and returns one row per item in that order.';
