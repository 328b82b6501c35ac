CREATE OR REPLACE FUNCTION queen_internal.add_tenant_usage(p_tenant text, p_kv_keys bigint DEFAULT 0, p_kv_bytes bigint DEFAULT 0, p_traces bigint DEFAULT 0, p_trace_bytes bigint DEFAULT 0, p_queues bigint DEFAULT 0, p_partitions bigint DEFAULT 0, p_consumer_groups bigint DEFAULT 0, p_give_back boolean DEFAULT false)
 RETURNS void
 LANGUAGE plpgsql AS $function$
DECLARE
  v_usage record;
  -- Growth and give-back use separate stripes (see the triggers below).
  v_stripe smallint := pg_backend_pid() % queen_internal.tenant_usage_stripes()
                       + CASE WHEN p_give_back THEN queen_internal.tenant_usage_stripes() ELSE 0 END;
BEGIN
  IF p_kv_keys = 0 AND p_kv_bytes = 0 AND p_traces = 0 AND p_trace_bytes = 0 AND p_queues = 0
     AND p_partitions = 0 AND p_consumer_groups = 0 THEN
    RETURN;
  END IF;
  INSERT INTO queen.tenant_usage AS u (tenant, stripe, kv_keys, kv_bytes, traces, trace_bytes, queues, partitions,
                                       consumer_groups)
  VALUES (p_tenant, v_stripe, p_kv_keys, p_kv_bytes, p_traces, p_trace_bytes,
          p_queues, p_partitions, p_consumer_groups)
  ON CONFLICT ON CONSTRAINT tenant_usage_pkey DO UPDATE
     SET kv_keys = u.kv_keys + EXCLUDED.kv_keys, kv_bytes = u.kv_bytes + EXCLUDED.kv_bytes,
         traces = u.traces + EXCLUDED.traces, trace_bytes = u.trace_bytes + EXCLUDED.trace_bytes,
         queues = u.queues + EXCLUDED.queues, partitions = u.partitions + EXCLUDED.partitions,
         consumer_groups = u.consumer_groups + EXCLUDED.consumer_groups;
  IF greatest(p_kv_keys, p_kv_bytes, p_traces, p_trace_bytes, p_queues, p_partitions, p_consumer_groups) <= 0 THEN
    RETURN;
  END IF;
  SELECT * INTO v_usage FROM queen.tenant_usage_of(p_tenant);
  IF p_kv_keys > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'kv_keys', v_usage.kv_keys); END IF;
  IF p_kv_bytes > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'kv_bytes', v_usage.kv_bytes); END IF;
  IF p_traces > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'traces', v_usage.traces); END IF;
  IF p_trace_bytes > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'trace_bytes', v_usage.trace_bytes); END IF;
  IF p_queues > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'queues', v_usage.queues); END IF;
  IF p_partitions > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'partitions', v_usage.partitions); END IF;
  IF p_consumer_groups > 0 THEN
    PERFORM queen_internal.check_tenant_quota(p_tenant, 'consumer_groups', v_usage.consumer_groups);
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.add_tenant_usage(p_tenant text, p_kv_keys bigint, p_kv_bytes bigint, p_traces bigint, p_trace_bytes bigint, p_queues bigint, p_partitions bigint, p_consumer_groups bigint, p_give_back boolean) IS 'Internal to the usage triggers: adds the deltas to this session''s stripe of p_tenant (a give-back stripe when p_give_back) and, for every positive delta, raises QQ429 when the tenant''s usage of that quota is now past its limit (queen_internal.tenant_quota_limit).';
