CREATE OR REPLACE FUNCTION queen.kv_delete(p_key text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_was_live boolean;
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
  DELETE FROM queen.kv k
   WHERE k.tenant = queen_internal.tenant_arg(p_tenant) AND k.key = p_key
  RETURNING queen_internal.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp())) INTO v_was_live;
  -- An expired row is removed too, but it already read as absent: report false.
  RETURN coalesce(v_was_live, false);
END;
$function$;

COMMENT ON FUNCTION queen.kv_delete(p_key text, p_tenant text, p_now timestamp with time zone) IS 'Deletes p_key of tenant p_tenant ('''' = default). True when a value live at p_now (null = clock_timestamp()) was deleted, false when the key was absent or already expired. 22023 on a bad key.';
GRANT EXECUTE ON FUNCTION queen.kv_delete(p_key text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
