CREATE OR REPLACE FUNCTION queen.tenant_usage_of(p_tenant text, OUT kv_keys bigint, OUT kv_bytes bigint, OUT traces bigint, OUT trace_bytes bigint, OUT queues bigint, OUT partitions bigint, OUT consumer_groups bigint)
 RETURNS record
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT coalesce(sum(u.kv_keys), 0)::bigint, coalesce(sum(u.kv_bytes), 0)::bigint,
         coalesce(sum(u.traces), 0)::bigint, coalesce(sum(u.trace_bytes), 0)::bigint,
         coalesce(sum(u.queues), 0)::bigint, coalesce(sum(u.partitions), 0)::bigint,
         coalesce(sum(u.consumer_groups), 0)::bigint
    FROM queen.tenant_usage u WHERE u.tenant = queen_internal.tenant_arg(p_tenant)
$function$;

COMMENT ON FUNCTION queen.tenant_usage_of(p_tenant text, OUT kv_keys bigint, OUT kv_bytes bigint, OUT traces bigint, OUT trace_bytes bigint, OUT queues bigint, OUT partitions bigint, OUT consumer_groups bigint) IS 'What tenant p_tenant ('''' = default) stores now, as counted by the usage triggers: KV keys and bytes, traces and trace bytes, queues, partitions, registered consumer groups.';
GRANT EXECUTE ON FUNCTION queen.tenant_usage_of(p_tenant text, OUT kv_keys bigint, OUT kv_bytes bigint, OUT traces bigint, OUT trace_bytes bigint, OUT queues bigint, OUT partitions bigint, OUT consumer_groups bigint) TO queen_admin, queen_reader;
