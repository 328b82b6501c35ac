CREATE OR REPLACE FUNCTION queen_internal.storage_quota_names()
 RETURNS text[]
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT ARRAY['kv_keys', 'kv_bytes', 'traces', 'trace_bytes', 'queues', 'partitions', 'consumer_groups']
$function$;

COMMENT ON FUNCTION queen_internal.storage_quota_names() IS 'The quotas the usage triggers enforce; each has a tenant_usage column, a tenant_quotas max_<name> override and a broker variable QUEEN_TENANT_MAX_<NAME>.';
