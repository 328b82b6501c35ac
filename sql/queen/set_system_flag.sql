CREATE OR REPLACE FUNCTION queen.set_system_flag(p_key text, p_enabled boolean)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
BEGIN
  PERFORM queen_internal.check_system_flag_key(p_key);
  IF p_enabled IS NULL THEN
    RAISE EXCEPTION 'enabled must be true or false' USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.system_state AS s (key, value, updated_at)
  VALUES (p_key, jsonb_build_object('enabled', p_enabled), now())
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
  RETURN p_enabled;
END;
$function$;

COMMENT ON FUNCTION queen.set_system_flag(p_key text, p_enabled boolean) IS 'Sets a cluster-wide flag: maintenance (pushes go to the spool) or pop_maintenance (pops return nothing). Returns the new value. 22023 on an unknown key.';
GRANT EXECUTE ON FUNCTION queen.set_system_flag(p_key text, p_enabled boolean) TO queen_admin, queen_broker;
