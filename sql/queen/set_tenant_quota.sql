CREATE OR REPLACE FUNCTION queen.set_tenant_quota(p_tenant text, p_max_pending bigint DEFAULT NULL::bigint, p_push_rate double precision DEFAULT NULL::double precision, p_push_burst integer DEFAULT NULL::integer, p_max_kv_keys bigint DEFAULT NULL::bigint, p_max_kv_bytes bigint DEFAULT NULL::bigint, p_max_traces bigint DEFAULT NULL::bigint, p_max_trace_bytes bigint DEFAULT NULL::bigint, p_max_dead_letters bigint DEFAULT NULL::bigint, p_max_queues bigint DEFAULT NULL::bigint, p_max_partitions bigint DEFAULT NULL::bigint, p_max_consumer_groups bigint DEFAULT NULL::bigint)
 RETURNS void
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_all numeric[] := ARRAY[p_max_pending, p_push_rate, p_push_burst, p_max_kv_keys, p_max_kv_bytes, p_max_traces,
                           p_max_trace_bytes, p_max_dead_letters, p_max_queues, p_max_partitions,
                           p_max_consumer_groups];
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(v_all) v WHERE v < 0) THEN
    RAISE EXCEPTION 'tenant quotas must not be negative' USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM unnest(v_all) v WHERE v IS NOT NULL) THEN
    DELETE FROM queen.tenant_quotas t WHERE t.tenant = v_tenant;
    RETURN;
  END IF;
  INSERT INTO queen.tenant_quotas AS t (tenant, max_pending, push_rate, push_burst, max_kv_keys, max_kv_bytes,
                                        max_traces, max_trace_bytes, max_dead_letters, max_queues, max_partitions,
                                        max_consumer_groups, updated_at)
  VALUES (v_tenant, p_max_pending, p_push_rate, p_push_burst, p_max_kv_keys, p_max_kv_bytes, p_max_traces,
          p_max_trace_bytes, p_max_dead_letters, p_max_queues, p_max_partitions, p_max_consumer_groups, now())
  ON CONFLICT (tenant) DO UPDATE
     SET max_pending = EXCLUDED.max_pending, push_rate = EXCLUDED.push_rate, push_burst = EXCLUDED.push_burst,
         max_kv_keys = EXCLUDED.max_kv_keys, max_kv_bytes = EXCLUDED.max_kv_bytes,
         max_traces = EXCLUDED.max_traces, max_trace_bytes = EXCLUDED.max_trace_bytes,
         max_dead_letters = EXCLUDED.max_dead_letters, max_queues = EXCLUDED.max_queues,
         max_partitions = EXCLUDED.max_partitions, max_consumer_groups = EXCLUDED.max_consumer_groups,
         updated_at = EXCLUDED.updated_at;
END;
$function$;

COMMENT ON FUNCTION queen.set_tenant_quota(p_tenant text, p_max_pending bigint, p_push_rate double precision, p_push_burst integer, p_max_kv_keys bigint, p_max_kv_bytes bigint, p_max_traces bigint, p_max_trace_bytes bigint, p_max_dead_letters bigint, p_max_queues bigint, p_max_partitions bigint, p_max_consumer_groups bigint) IS 'Sets the quota overrides of tenant p_tenant ('''' = default), every one at once: null = the broker default, 0 = unlimited; all null removes the overrides. Brokers started with QUEEN_TENANT_QUOTA_OVERRIDES=true apply a change to the storage quotas at once and to the push and dead-letter quotas within their quota cache time. 22023 on a negative value.';
GRANT EXECUTE ON FUNCTION queen.set_tenant_quota(p_tenant text, p_max_pending bigint, p_push_rate double precision, p_push_burst integer, p_max_kv_keys bigint, p_max_kv_bytes bigint, p_max_traces bigint, p_max_trace_bytes bigint, p_max_dead_letters bigint, p_max_queues bigint, p_max_partitions bigint, p_max_consumer_groups bigint) TO queen_admin;
