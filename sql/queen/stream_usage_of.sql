CREATE OR REPLACE FUNCTION queen.stream_usage_of(p_tenant text, OUT state_keys bigint, OUT state_bytes bigint)
 RETURNS record
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT coalesce(sum(u.state_keys), 0)::bigint, coalesce(sum(u.state_bytes), 0)::bigint
    FROM queen.stream_usage u WHERE u.tenant = queen_internal.tenant_arg(p_tenant)
$function$;

COMMENT ON FUNCTION queen.stream_usage_of(p_tenant text, OUT state_keys bigint, OUT state_bytes bigint) IS 'The stream state tenant p_tenant ('''' = default) stores now: keys and counted bytes.';
GRANT EXECUTE ON FUNCTION queen.stream_usage_of(p_tenant text, OUT state_keys bigint, OUT state_bytes bigint) TO queen_admin, queen_reader;
