CREATE OR REPLACE FUNCTION queen.ack_many(p_requests jsonb, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(request_idx integer, idx integer, transaction_id text, success boolean, error text, queue_name text, partition_name text, lease_released boolean, dlq boolean)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
#variable_conflict use_column
DECLARE
  v_max_requests CONSTANT int := 1000;
  v_tenant text := queen_internal.tenant_arg(p_tenant);
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
             coalesce(nullif(r.e ->> 'group', ''), queen_internal.ack_lease_group(r.e -> 'acks', v_tenant),
                      queen_internal.queue_mode_group()) AS consumer_group
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
$function$;

COMMENT ON FUNCTION queen.ack_many(p_requests jsonb, p_tenant text, p_now timestamp with time zone) IS 'Ack combining: applies ack requests [{group: text|null, acks: [...]}, ...] (1..1000) of tenant p_tenant in one transaction, each with its own group (null = the group holding one of its leases, else queue mode) through ack_messages; one row per item with request_idx and idx (0-based, within its request). Requests must not share a partition.';
GRANT EXECUTE ON FUNCTION queen.ack_many(p_requests jsonb, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
