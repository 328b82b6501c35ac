CREATE OR REPLACE FUNCTION queen.kv_get(p_key text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(value jsonb, expires_at timestamp with time zone)
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
  RETURN QUERY
    SELECT k.value, k.expires_at
      FROM queen.kv k
     WHERE k.tenant = queen_internal.tenant_arg(p_tenant) AND k.key = p_key
       AND queen_internal.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp()));
END;
$function$;

COMMENT ON FUNCTION queen.kv_get(p_key text, p_tenant text, p_now timestamp with time zone) IS 'The value and expires_at of p_key of tenant p_tenant ('''' = default); no row when the key is absent or its TTL has passed at p_now (null = clock_timestamp()), even before the sweeper deletes it. 22023 on a bad key.';
GRANT EXECUTE ON FUNCTION queen.kv_get(p_key text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker, queen_reader;
