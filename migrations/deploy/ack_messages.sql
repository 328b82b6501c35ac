-- Deploy queen:ack_messages to pg (release 1.1.0, a rework of ack_messages@v1.0.0)
-- queen.ack_messages as named steps (check the items, find the group, apply them, answer in request order); the
-- loop that applies the items is queen_internal.apply_acks, and the judgement of one item is two SQL helpers
-- (ack_item_error, ack_item_action) that the planner inlines into it, so no item costs a function call. The rules
-- and the statements each call runs are those of 1.0.0, but for ack_lease_group's lookup of the lease, which no
-- longer depends on the statistics a plan was made with (below). CREATE OR REPLACE keeps ack_messages' owner and
-- grants (queen_owner; EXECUTE for queen_broker and queen_admin); the new helpers are queen_owner's, and PUBLIC gets
-- no EXECUTE (internal_schema's default privileges).

BEGIN;

SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

CREATE FUNCTION queen_internal.ack_item_error(p_seq bigint, p_status text, p_lease_text text, p_lease_given uuid,
                                              p_start_lease_id uuid, p_start_failed_lease_id uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE
    WHEN p_seq IS NULL THEN 'Message not found'
    WHEN p_status NOT IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN 'Invalid status'
    -- a lease id, when given, must be the lease held at request start; a failed or
    -- retry ack may also name the lease a failure already released (a no-op)
    WHEN NOT (p_lease_text IS NULL
              OR coalesce(p_lease_given = p_start_lease_id, false)
              OR (p_status IN ('failed', 'retry') AND coalesce(p_lease_given = p_start_failed_lease_id, false)))
      THEN 'Invalid or expired lease'
  END
$function$;
COMMENT ON FUNCTION queen_internal.ack_item_error(bigint,text,text,uuid,uuid,uuid) IS
  'Internal to apply_acks: why an ack item fails (Message not found, Invalid status, Invalid or expired lease), or null. p_lease_given is p_lease_text as a uuid; the lease rule compares it with the cursor''s lease at request start (null when none or expired) and its failed_lease_id. Inlined by the planner.';

CREATE FUNCTION queen_internal.ack_item_action(p_status text, p_seq bigint, p_cursor_seq bigint, p_retry_count int,
                                               p_retry_limit int, p_failed_here bool, p_lease_given uuid,
                                               p_start_lease_id uuid, p_start_failed_lease_id uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE
    WHEN p_status = 'retry' THEN CASE WHEN p_seq > p_cursor_seq THEN 'give back' ELSE 'none' END
    WHEN p_status = 'failed' AND p_seq <= p_cursor_seq THEN 'none'  -- already consumed: nothing to redeliver
    WHEN p_status = 'failed'
         AND (p_failed_here OR (coalesce(p_lease_given = p_start_failed_lease_id, false)
                                AND p_lease_given IS DISTINCT FROM p_start_lease_id))
      THEN 'none'  -- this batch was already released by a failure: one failed batch costs one retry
    WHEN p_status = 'failed' AND p_retry_count < p_retry_limit THEN 'fail'
    ELSE 'consume'  -- completed / success, dlq, or failed with retries exhausted
  END
$function$;
COMMENT ON FUNCTION queen_internal.ack_item_action(text,bigint,bigint,int,int,bool,uuid,uuid,uuid) IS
  'Internal to apply_acks: what a valid ack item does to its cursor: give back (retry: release without spending a retry), fail (the batch''s first failure: release for redelivery after retryDelay), consume (completed, dlq, or failed with retries exhausted: move the cursor, dead-letter when dlq or failed) or none. p_failed_here: a failure of this request already released the batch. Inlined by the planner.';

CREATE FUNCTION queen_internal.release_ack_batch(c queen.consumers, p_failed bool, p_available_at timestamp with time zone)
 RETURNS queen.consumers
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF p_failed THEN
    -- the batch's first failure: one retry spent, redelivered from p_available_at (retryDelay)
    c.retry_count := c.retry_count + 1;
    c.available_at := p_available_at;
  END IF;
  IF c.lease_id IS NOT NULL THEN
    IF p_failed THEN
      c.failed_lease_id := c.lease_id;
    END IF;
    c.lease_id := NULL; c.lease_expires_at := NULL;
  END IF;
  RETURN c;
END;
$function$;
COMMENT ON FUNCTION queen_internal.release_ack_batch(queen.consumers,boolean,timestamp with time zone) IS
  'Internal to apply_acks: cursor row c with its lease released (give back, or a first failure when p_failed: then also retry_count + 1, available_at = p_available_at and failed_lease_id = the released lease). Called for retry and failed items only, never for a completed one.';

CREATE FUNCTION queen_internal.apply_acks(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone)
 RETURNS TABLE(idx integer, transaction_id text, success boolean, error text, queue_name text, partition_name text, lease_released boolean, dlq boolean)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
DECLARE
  r record;                       -- an item (ack_item_rows)
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
  -- One item at a time, partition by partition (ack_item_rows: the lock order).
  FOR r IN SELECT * FROM queen_internal.ack_item_rows(p_acks, p_tenant)
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
COMMENT ON FUNCTION queen_internal.apply_acks(jsonb,text,text,timestamp with time zone) IS
  'Internal to ack_messages: applies the ack items of tenant p_tenant for group p_group at p_now, partition by partition in lock order (each cursor row locked, changed in memory, stored once), settles the partitions consumed to their end, and returns one row per item in that order.';

-- The group of an ack that names none, found by its lease: one probe per ack item until one is found, whatever
-- the statistics a plan was made with. `lease_id = ...` is the only index condition: the partition is compared
-- with IS NOT DISTINCT FROM, which no index answers (partition_id is never null, so it matches what = matched),
-- and the tenant through the cursor row's queue_id in a scalar subquery, which the planner cannot move out of the
-- probe.
-- 1.0.0 joined the probe to queen.partitions and queen.queues; a generic plan made while the tables were tiny
-- and freshly analyzed put that join outside, scanning every partition of the database and probing every item
-- for each, or probed by partition_id alone through pop's work-list index (whose last column it is): acks
-- without a group then cost 5-10 ms each in half of the runs (docs/performance.md, "The pop+ack collapse of
-- 1.1.0's first builds").
CREATE OR REPLACE FUNCTION queen_internal.ack_lease_group(p_acks jsonb, p_tenant text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT c.consumer_group
            FROM jsonb_array_elements(p_acks) AS e(item)
            CROSS JOIN LATERAL (SELECT cc.consumer_group FROM queen.consumers cc
                                 WHERE cc.lease_id = queen_internal.uuid_or_null(e.item ->> 'leaseId')
                                   AND cc.partition_id IS NOT DISTINCT FROM queen_internal.uuid_or_null(e.item ->> 'partitionId')
                                   AND (SELECT q.tenant FROM queen.queues q WHERE q.id = cc.queue_id) = p_tenant
                                 LIMIT 1) c
           LIMIT 1);
END;
$function$;
COMMENT ON FUNCTION queen_internal.ack_lease_group(jsonb,text) IS
  'Consumer group holding one of the (partitionId, leaseId) pairs of an ack array in tenant p_tenant, or null.';

CREATE OR REPLACE FUNCTION queen.ack_messages(p_acks jsonb, p_group text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(idx integer, transaction_id text, success boolean, error text, queue_name text, partition_name text, lease_released boolean, dlq boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_group text := coalesce(nullif(p_group, ''), '__QUEUE_MODE__');
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
COMMENT ON FUNCTION queen.ack_messages(jsonb,text,text,timestamp with time zone) IS
  'Applies acks [{transactionId, partitionId, leaseId?, status?, error?}] of tenant p_tenant ('''' = default; a partition of another tenant''s queue answers Message not found) for group p_group (null = the group holding the given leaseId, else queue mode). completed/success move the cursor forward; failed releases the batch (one retry per batch, retryDelay gate) or dead-letters it once retryLimit is spent; dlq dead-letters; retry releases without spending a retry. One row per item, in request order: Message not found / Invalid or expired lease / Invalid status are per-item failures. Leases and the retryDelay gate are judged at p_now (null = now()).';

RESET ROLE;

COMMIT;
