-- Deploy queen:pop_many to pg
BEGIN;

-- Pop combining (docs/combining.md): p_requests pops with the same parameters in
-- one transaction, so concurrent consumers share one commit. Each call of
-- pop_messages mints its own lease; a later call cannot claim a partition an
-- earlier one leased, because its lease filter sees that (uncommitted, own)
-- lease, so every request gets its own messages, as if it had popped alone.
CREATE FUNCTION queen.pop_many(p_requests int, p_queue text, p_partition text, p_group text, p_batch int,
                               p_partitions int, p_auto_ack bool,
                               p_subscription_mode text, p_subscription_from text,
                               p_namespace text, p_task text,
                               p_tenant text, p_now timestamptz DEFAULT NULL)
RETURNS TABLE (request_idx int, lease_id uuid, queue_name text, partition_name text, partition_id uuid,
               message_id uuid, transaction_id text, trace_id uuid, payload jsonb, producer_sub text,
               is_encrypted bool, created_at timestamptz, retry_count int)
-- one plan per statement and connection, never re-planned per call, and never a sequential scan of a
-- table that was tiny when the plan was made (docs/procedures.md, plans)
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_max_requests CONSTANT int := 1000;
BEGIN
  IF p_requests IS NULL OR p_requests < 1 OR p_requests > v_max_requests THEN
    RAISE EXCEPTION 'requests must be between 1 and % (got %)', v_max_requests, coalesce(p_requests::text, 'null')
      USING ERRCODE = '22023';
  END IF;
  FOR i IN 0 .. p_requests - 1 LOOP
    RETURN QUERY
    SELECT i, m.lease_id, m.queue_name, m.partition_name, m.partition_id, m.message_id, m.transaction_id,
           m.trace_id, m.payload, m.producer_sub, m.is_encrypted, m.created_at, m.retry_count
      FROM queen.pop_messages(p_queue, p_partition, p_group, p_batch, p_partitions, p_auto_ack,
                              p_subscription_mode, p_subscription_from, p_namespace, p_task, p_tenant, p_now) m;
    -- Nothing claimable: the next call, with the same parameters, would find nothing either.
    EXIT WHEN NOT FOUND;
  END LOOP;
END;
$$;
COMMENT ON FUNCTION queen.pop_many(int, text, text, text, int, int, bool, text, text, text, text, text, timestamptz) IS
  'Pop combining: calls pop_messages p_requests times (1..1000) with the same parameters in one transaction and returns its rows with request_idx (0-based), each call with its own lease id and partitions; stops at the first call that finds nothing.';

COMMIT;
