CREATE OR REPLACE FUNCTION queen_internal.check_system_flag_key(p_key text)
 RETURNS void
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF p_key IS NULL OR p_key NOT IN ('maintenance', 'pop_maintenance') THEN
    RAISE EXCEPTION 'unknown system flag %, expected maintenance or pop_maintenance', coalesce(p_key, 'null')
      USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_system_flag_key(p_key text) IS 'Raises 22023 unless p_key is a known system flag (maintenance, pop_maintenance).';
