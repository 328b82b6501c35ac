-- Deploy queen:ack_many to pg
BEGIN;

-- Ack combining (docs/combining.md): several ack requests of one tenant in one
-- transaction, so concurrent consumers share one commit. Each request keeps
-- its own group: a named one, or (null) the group its lease names, else queue
-- mode, exactly as ack_messages decides it alone. The requests of one group go
-- through one ack_messages call (groups in name order, partitions in id order
-- inside it: the lock order every ack follows, so combined calls cannot
-- deadlock). The caller never combines two requests that name a common
-- partition, so each request is answered as it would be alone.
CREATE FUNCTION queen.ack_many(p_requests jsonb, p_tenant text, p_now timestamptz DEFAULT NULL)
RETURNS TABLE (request_idx int, idx int, transaction_id text, success bool, error text, queue_name text,
               partition_name text, lease_released bool, dlq bool)
-- one plan per statement and connection, never re-planned per call, and never a sequential scan of a
-- table that was tiny when the plan was made (docs/procedures.md, plans)
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_max_requests CONSTANT int := 1000;
  v_tenant text := queen.tenant_arg(p_tenant);
  g record;
BEGIN
  IF p_requests IS NULL OR jsonb_typeof(p_requests) <> 'array'
     OR jsonb_array_length(p_requests) NOT BETWEEN 1 AND v_max_requests THEN
    RAISE EXCEPTION 'an array of 1 to % ack requests is required', v_max_requests USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_requests) r
              WHERE jsonb_typeof(r) <> 'object' OR jsonb_typeof(r -> 'acks') IS DISTINCT FROM 'array'
                 OR jsonb_typeof(coalesce(r -> 'group', 'null'::jsonb)) NOT IN ('string', 'null')) THEN
    RAISE EXCEPTION 'each ack request must be an object with an acks array and a group (string or null)'
      USING ERRCODE = '22023';
  END IF;

  FOR g IN
    WITH requests AS (
      SELECT (r.ord - 1)::int AS request_idx, r.e -> 'acks' AS acks,
             coalesce(nullif(r.e ->> 'group', ''), queen.ack_lease_group(r.e -> 'acks', v_tenant),
                      '__QUEUE_MODE__') AS consumer_group
        FROM jsonb_array_elements(p_requests) WITH ORDINALITY AS r(e, ord)
    )
    SELECT q.consumer_group,
           jsonb_agg(a.e ORDER BY q.request_idx, a.ord) AS acks,
           array_agg(q.request_idx ORDER BY q.request_idx, a.ord) AS owners,
           array_agg((a.ord - 1)::int ORDER BY q.request_idx, a.ord) AS items
      FROM requests q
     CROSS JOIN LATERAL jsonb_array_elements(q.acks) WITH ORDINALITY AS a(e, ord)
     GROUP BY q.consumer_group
     ORDER BY q.consumer_group
  LOOP
    RETURN QUERY
    SELECT g.owners[r.idx + 1], g.items[r.idx + 1], r.transaction_id, r.success, r.error, r.queue_name,
           r.partition_name, r.lease_released, r.dlq
      FROM queen.ack_messages(g.acks, g.consumer_group, p_tenant, p_now) r;
  END LOOP;
END;
$$;
COMMENT ON FUNCTION queen.ack_many(jsonb, text, timestamptz) IS
  'Ack combining: applies ack requests [{group: text|null, acks: [...]}, ...] (1..1000) of tenant p_tenant in one transaction, each with its own group (null = the group holding one of its leases, else queue mode) through ack_messages; one row per item with request_idx and idx (0-based, within its request). Requests must not share a partition.';

COMMIT;
