CREATE OR REPLACE FUNCTION queen.get_system_flag(p_key text)
 RETURNS boolean
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
BEGIN
  PERFORM queen_internal.check_system_flag_key(p_key);
  RETURN coalesce((SELECT (s.value ->> 'enabled')::bool FROM queen.system_state s WHERE s.key = p_key), false);
END;
$function$;

COMMENT ON FUNCTION queen.get_system_flag(p_key text) IS 'Reads a cluster-wide flag (maintenance, pop_maintenance); false when never set. 22023 on an unknown key.';
GRANT EXECUTE ON FUNCTION queen.get_system_flag(p_key text) TO queen_admin, queen_broker, queen_reader;
