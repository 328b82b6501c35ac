CREATE OR REPLACE FUNCTION queen_internal.tenant_quota_limit(p_tenant text, p_quota text)
 RETURNS bigint
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_override bigint;
BEGIN
  IF coalesce(current_setting('queen.tenant_quota_overrides', true), '') = 'on' THEN
    SELECT CASE p_quota
             WHEN 'kv_keys' THEN t.max_kv_keys WHEN 'kv_bytes' THEN t.max_kv_bytes
             WHEN 'traces' THEN t.max_traces WHEN 'trace_bytes' THEN t.max_trace_bytes
             WHEN 'queues' THEN t.max_queues WHEN 'partitions' THEN t.max_partitions
             WHEN 'consumer_groups' THEN t.max_consumer_groups WHEN 'dead_letters' THEN t.max_dead_letters
           END
      INTO v_override
      FROM queen.tenant_quotas t WHERE t.tenant = queen_internal.tenant_arg(p_tenant);
    IF v_override IS NOT NULL THEN
      RETURN v_override;
    END IF;
  END IF;
  RETURN coalesce(nullif(current_setting('queen.tenant_max_' || p_quota, true), '')::bigint, 0);
END;
$function$;

COMMENT ON FUNCTION queen_internal.tenant_quota_limit(p_tenant text, p_quota text) IS 'The limit of quota p_quota (a storage_quota_names() entry or dead_letters) for tenant p_tenant in this session: the tenant_quotas override when queen.tenant_quota_overrides is on and the override is set, else the session setting queen.tenant_max_<quota> (set by the broker), else 0 (unlimited).';
