-- Deploy queen:ack_messages to pg (release 1.0.0, a rework of ack_messages@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- ack_messages@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.uuid_or_null(text),
  queen.ensure_consumer(uuid,text),
  queen.store_ack_state(queen.consumers,bigint,timestamp with time zone,bigint),
  queen.ack_lease_group(jsonb,text),
  queen.check_ack_items(jsonb),
  queen.ack_item_rows(jsonb,text),
  queen.lock_ack_cursor(uuid,text),
  queen.ack_messages(jsonb,text,text,timestamp with time zone);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.uuid_or_null(p_text text)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN p_text ~* '^\{?[0-9a-f]{8}-?([0-9a-f]{4}-?){3}[0-9a-f]{12}\}?$' THEN p_text::uuid END
$function$;
COMMENT ON FUNCTION queen_internal.uuid_or_null(text) IS
  'p_text cast to uuid, or null when it is not a UUID.';

CREATE OR REPLACE FUNCTION queen_internal.ensure_consumer(p_partition_id uuid, p_group text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, p_group, p.queue_id,
         CASE WHEN p_group = '__QUEUE_MODE__' THEN 0
              ELSE queen_internal.start_cursor(p.id, p.last_seq, p.last_message_at,
                                      queen_internal.subscription_start_at(p_group, p.queue_id, p.name)) END
    FROM queen.partitions p
   WHERE p.id = p_partition_id
     AND NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group)
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;
END;
$function$;
COMMENT ON FUNCTION queen_internal.ensure_consumer(uuid,text) IS
  'Creates the consumers row of (partition, group) if missing, at the group''s subscription start point.';

CREATE OR REPLACE FUNCTION queen_internal.store_ack_state(c queen.consumers, p_start_cursor bigint, p_now timestamp with time zone, p_last_seq bigint)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_settle bool;
BEGIN
  UPDATE queen.consumers t
     SET cursor_seq = c.cursor_seq,
         lease_id = c.lease_id,
         lease_expires_at = c.lease_expires_at,
         lease_acked = c.lease_acked,
         retry_count = c.retry_count,
         failed_lease_id = c.failed_lease_id,
         available_at = c.available_at,
         total_consumed = t.total_consumed + (c.cursor_seq - p_start_cursor),
         last_consumed_at = CASE WHEN c.cursor_seq > p_start_cursor THEN p_now ELSE t.last_consumed_at END
   WHERE t.partition_id = c.partition_id AND t.consumer_group = c.consumer_group
  RETURNING t.pending AND c.cursor_seq > p_start_cursor AND c.cursor_seq >= p_last_seq INTO v_settle;
  RETURN v_settle;
END;
$function$;
COMMENT ON FUNCTION queen_internal.store_ack_state(queen.consumers,bigint,timestamp with time zone,bigint) IS
  'Internal to ack_messages: writes back a cursor row (cursor, lease, retries, retryDelay gate) and counts the cursor movement as consumed messages. True when the pending row''s cursor moved up to p_last_seq (a row to settle).';

CREATE OR REPLACE FUNCTION queen_internal.ack_lease_group(p_acks jsonb, p_tenant text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT c.consumer_group
            FROM jsonb_array_elements(p_acks) e
            CROSS JOIN LATERAL (SELECT cc.partition_id, cc.consumer_group FROM queen.consumers cc
                                 WHERE cc.partition_id = queen_internal.uuid_or_null(e ->> 'partitionId')
                                   AND cc.lease_id = queen_internal.uuid_or_null(e ->> 'leaseId')
                                 LIMIT 1) c
            JOIN queen.partitions p ON p.id = c.partition_id
            JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant
           LIMIT 1);
END;
$function$;
COMMENT ON FUNCTION queen_internal.ack_lease_group(jsonb,text) IS
  'Consumer group holding one of the (partitionId, leaseId) pairs of an ack array in tenant p_tenant, or null.';

CREATE OR REPLACE FUNCTION queen_internal.check_ack_items(p_acks jsonb)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF p_acks IS NULL OR jsonb_typeof(p_acks) <> 'array' THEN
    RAISE EXCEPTION 'acknowledgments array is required' USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_acks) e
              WHERE jsonb_typeof(e) <> 'object' OR jsonb_typeof(e -> 'transactionId') IS DISTINCT FROM 'string') THEN
    RAISE EXCEPTION 'each acknowledgment must be an object with a transactionId string' USING ERRCODE = '22023';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.check_ack_items(jsonb) IS
  'Internal to ack_messages: 22023 unless p_acks is an array of objects with a transactionId string.';

CREATE OR REPLACE FUNCTION queen_internal.ack_item_rows(p_acks jsonb, p_tenant text)
 RETURNS TABLE(idx integer, txid text, lease_text text, status text, error_message text, partition_id uuid, seq bigint, last_seq bigint, partition_name text, queue_name text, retry_limit integer, retry_delay_ms integer)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT (x.ord - 1)::int,
         x.e ->> 'transactionId',
         nullif(x.e ->> 'leaseId', ''),
         lower(coalesce(nullif(x.e ->> 'status', ''), 'completed')),
         nullif(x.e ->> 'error', ''),
         m.partition_id, m.seq, p.last_seq,
         p.name::text, q.name::text, q.retry_limit, q.retry_delay_ms
    FROM jsonb_array_elements(p_acks) WITH ORDINALITY AS x(e, ord)
    LEFT JOIN (queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = p_tenant)
           ON p.id = queen_internal.uuid_or_null(x.e ->> 'partitionId')
    -- LATERAL with LIMIT: one probe on both columns of the unique key, whatever plan
    -- a connection cached while the table was small (docs/procedures.md, plans)
    LEFT JOIN LATERAL (SELECT m.partition_id, m.seq FROM queen.messages m
                        WHERE m.partition_id = p.id AND m.transaction_id = x.e ->> 'transactionId'
                        LIMIT 1) m ON true
   ORDER BY m.partition_id NULLS FIRST, m.seq, x.ord;
END;
$function$;
COMMENT ON FUNCTION queen_internal.ack_item_rows(jsonb,text) IS
  'Internal to ack_messages: the ack items with their message (partition, seq; null when not found in tenant p_tenant) and queue retry options, in partition id then seq order.';

CREATE OR REPLACE FUNCTION queen_internal.lock_ack_cursor(p_partition_id uuid, p_group text)
 RETURNS queen.consumers
 LANGUAGE plpgsql
AS $function$
DECLARE
  c queen.consumers;
BEGIN
  SELECT * INTO c FROM queen.consumers cc
   WHERE cc.partition_id = p_partition_id AND cc.consumer_group = p_group FOR UPDATE;
  IF NOT FOUND THEN
    PERFORM queen_internal.ensure_consumer(p_partition_id, p_group);
    SELECT * INTO c FROM queen.consumers cc
     WHERE cc.partition_id = p_partition_id AND cc.consumer_group = p_group FOR UPDATE;
  END IF;
  RETURN c;
END;
$function$;
COMMENT ON FUNCTION queen_internal.lock_ack_cursor(uuid,text) IS
  'Internal to ack_messages: the cursor row of (p_partition_id, p_group) locked FOR UPDATE, created at the group''s start point when missing.';

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
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  r record;
  c queen.consumers;              -- working copy of the locked cursor row
  v_partition_id uuid;            -- partition whose row is in c
  v_start_cursor bigint;
  v_start_lease_id uuid;          -- lease at request start, null if none or expired
  v_start_failed_lease_id uuid;
  v_failed_here bool;             -- a failed ack of this request already released the batch
  v_cap bigint;                   -- the cursor may not pass this seq (first failed/retried message - 1)
  v_retry_limit int;
  v_retry_delay_ms int;
  v_lease_given uuid;
  v_lease_ok bool;
  v_success bool;
  v_error text;
  v_released bool;
  v_dlq bool;
  n int := 0;
  a_idx int[] := '{}'; a_txid text[] := '{}'; a_success bool[] := '{}'; a_error text[] := '{}';
  a_queue text[] := '{}'; a_partition text[] := '{}'; a_released bool[] := '{}'; a_dlq bool[] := '{}';
  v_last_seq bigint;              -- the partition's last seq as the item query read it
  v_drained uuid[] := '{}';       -- partitions whose cursor reached v_last_seq: settled at the end
BEGIN
  PERFORM queen_internal.check_ack_items(p_acks);

  -- No group named: a consumer that popped with a group and acks without
  -- naming it is recognised by its lease.
  IF nullif(p_group, '') IS NULL THEN
    v_group := coalesce(queen_internal.ack_lease_group(p_acks, v_tenant), v_group);
  END IF;

  -- One item at a time, partition by partition (queen_internal.ack_item_rows: the lock order).
  FOR r IN SELECT * FROM queen_internal.ack_item_rows(p_acks, v_tenant)
  LOOP
    v_success := false; v_error := NULL; v_released := false; v_dlq := false;

    IF r.seq IS NOT NULL AND r.partition_id IS DISTINCT FROM v_partition_id THEN
      -- next partition: store the previous one, lock and load this one
      IF v_partition_id IS NOT NULL AND queen_internal.store_ack_state(c, v_start_cursor, v_now, v_last_seq) THEN
        v_drained := v_drained || v_partition_id;
      END IF;
      v_partition_id := r.partition_id;
      v_last_seq := r.last_seq;
      c := queen_internal.lock_ack_cursor(v_partition_id, v_group);
      v_start_cursor := c.cursor_seq;
      v_start_lease_id := CASE WHEN c.lease_expires_at > v_now THEN c.lease_id END;
      v_start_failed_lease_id := c.failed_lease_id;
      v_failed_here := false;
      v_cap := NULL;
      v_retry_limit := r.retry_limit;
      v_retry_delay_ms := r.retry_delay_ms;
    END IF;

    v_lease_given := queen_internal.uuid_or_null(r.lease_text);
    -- a lease id, when given, must be the lease held at request start; a failed or
    -- retry ack may also name the lease a failure already released (a no-op below)
    v_lease_ok := r.lease_text IS NULL
               OR coalesce(v_lease_given = v_start_lease_id, false)
               OR (r.status IN ('failed', 'retry') AND coalesce(v_lease_given = v_start_failed_lease_id, false));

    IF r.seq IS NULL THEN
      v_error := 'Message not found';
    ELSIF r.status NOT IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN
      v_error := 'Invalid status';
    ELSIF NOT v_lease_ok THEN
      v_error := 'Invalid or expired lease';
    ELSE
      v_success := true;
      IF r.status = 'retry' THEN
        -- give the batch back without spending a retry
        IF r.seq > c.cursor_seq THEN
          v_cap := least(coalesce(v_cap, r.seq - 1), r.seq - 1);
          IF c.lease_id IS NOT NULL THEN
            c.lease_id := NULL; c.lease_expires_at := NULL; v_released := true;
          END IF;
        END IF;
      ELSIF r.status = 'failed' AND r.seq <= c.cursor_seq THEN
        NULL;  -- already consumed: nothing to redeliver
      ELSIF r.status = 'failed'
            AND (v_failed_here OR (coalesce(v_lease_given = v_start_failed_lease_id, false)
                                   AND v_lease_given IS DISTINCT FROM v_start_lease_id)) THEN
        NULL;  -- this batch was already released by a failure: one failed batch costs one retry
      ELSIF r.status = 'failed' AND c.retry_count < v_retry_limit THEN
        -- first failure of this batch: release it for redelivery after retryDelay
        v_failed_here := true;
        v_cap := least(coalesce(v_cap, r.seq - 1), r.seq - 1);
        c.retry_count := c.retry_count + 1;
        c.available_at := v_now + v_retry_delay_ms * interval '1 millisecond';
        IF c.lease_id IS NOT NULL THEN
          c.failed_lease_id := c.lease_id;
          c.lease_id := NULL; c.lease_expires_at := NULL; v_released := true;
        END IF;
      ELSE
        -- completed / success, dlq, or failed with retries exhausted
        IF r.status IN ('dlq', 'failed') AND r.seq > c.cursor_seq THEN
          PERFORM queen_internal.dead_letter(r.partition_id, r.seq, v_group,
                                    coalesce(r.error_message, 'Retries exhausted'), c.retry_count);
          v_dlq := true;
        END IF;
        IF r.seq > c.cursor_seq AND (v_cap IS NULL OR r.seq <= v_cap) AND c.lease_id IS NOT NULL THEN
          c.lease_acked := c.lease_acked + 1;
        END IF;
        -- forward only, and never past a message this request failed or retried
        c.cursor_seq := greatest(c.cursor_seq, least(r.seq, coalesce(v_cap, r.seq)));
        IF c.lease_id IS NOT NULL AND c.cursor_seq >= c.lease_max_seq THEN
          -- the whole batch is consumed: release it and forget its retries
          c.lease_id := NULL; c.lease_expires_at := NULL; c.retry_count := 0; v_released := true;
        END IF;
      END IF;
    END IF;

    n := n + 1;
    a_idx[n] := r.idx; a_txid[n] := r.txid; a_success[n] := v_success; a_error[n] := v_error;
    a_queue[n] := r.queue_name; a_partition[n] := r.partition_name; a_released[n] := v_released; a_dlq[n] := v_dlq;
  END LOOP;
  IF v_partition_id IS NOT NULL AND queen_internal.store_ack_state(c, v_start_cursor, v_now, v_last_seq) THEN
    v_drained := v_drained || v_partition_id;
  END IF;
  -- pop's work list: a partition this request consumed to the end is no longer pending
  IF cardinality(v_drained) > 0 THEN
    PERFORM queen_internal.settle_drained(v_group, v_drained);
  END IF;

  RETURN QUERY
  SELECT u.i, u.t, u.s, u.e, u.q, u.p, u.l, u.d
    FROM unnest(a_idx, a_txid, a_success, a_error, a_queue, a_partition, a_released, a_dlq) AS u(i, t, s, e, q, p, l, d)
   ORDER BY u.i;
END;
$function$;
COMMENT ON FUNCTION queen.ack_messages(jsonb,text,text,timestamp with time zone) IS
  'Applies acks [{transactionId, partitionId, leaseId?, status?, error?}] of tenant p_tenant ('''' = default; a partition of another tenant''s queue answers Message not found) for group p_group (null = the group holding the given leaseId, else queue mode). completed/success move the cursor forward; failed releases the batch (one retry per batch, retryDelay gate) or dead-letters it once retryLimit is spent; dlq dead-letters; retry releases without spending a retry. One row per item, in request order: Message not found / Invalid or expired lease / Invalid status are per-item failures. Leases and the retryDelay gate are judged at p_now (null = now()).';

RESET ROLE;

COMMIT;
