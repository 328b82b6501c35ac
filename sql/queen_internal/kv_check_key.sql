CREATE OR REPLACE FUNCTION queen_internal.kv_check_key(p_key text)
 RETURNS void
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF p_key IS NULL OR p_key = '' THEN
    RAISE EXCEPTION 'kv key is required' USING ERRCODE = '22023';
  END IF;
  IF queen_internal.name_problem(p_key) IS NOT NULL THEN
    RAISE EXCEPTION 'kv key % (%)', queen_internal.name_problem(p_key), length(p_key) USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.kv_check_key(p_key text) IS 'Raises 22023 when a KV key is null, empty or longer than queen_internal.name_max_chars() (255) characters.';
