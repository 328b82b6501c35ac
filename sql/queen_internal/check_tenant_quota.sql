CREATE OR REPLACE FUNCTION queen_internal.check_tenant_quota(p_tenant text, p_quota text, p_usage bigint)
 RETURNS void
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_limit bigint := queen_internal.tenant_quota_limit(p_tenant, p_quota);
BEGIN
  IF v_limit > 0 AND p_usage > v_limit THEN
    RAISE EXCEPTION '% quota of % reached (% %, QUEEN_TENANT_MAX_%)',
      CASE p_quota WHEN 'kv_keys' THEN 'KV keys' WHEN 'kv_bytes' THEN 'KV bytes' WHEN 'trace_bytes' THEN 'trace bytes'
                   ELSE replace(p_quota, '_', ' ') END,
      CASE WHEN p_tenant = '' THEN 'the default tenant' ELSE 'tenant ' || p_tenant END,
      v_limit, CASE WHEN p_quota LIKE '%bytes' THEN 'bytes' ELSE replace(p_quota, '_', ' ') END, upper(p_quota)
      USING ERRCODE = 'QQ429';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_tenant_quota(p_tenant text, p_quota text, p_usage bigint) IS 'Raises SQLSTATE QQ429 ("<quota> quota of <tenant> reached (<limit> <unit>, QUEEN_TENANT_MAX_<QUOTA>)") when p_usage exceeds the tenant''s limit of p_quota; nothing when the limit is 0.';
