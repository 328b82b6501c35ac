CREATE OR REPLACE FUNCTION queen_internal.option_int(p_options jsonb, p_key text, p_default integer, p_min integer DEFAULT 0)
 RETURNS integer
 LANGUAGE plpgsql IMMUTABLE AS $function$
DECLARE
  v_value jsonb := p_options -> p_key;
  v_number numeric;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN p_default;
  END IF;
  IF jsonb_typeof(v_value) <> 'number' THEN
    RAISE EXCEPTION 'option % must be an integer, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  v_number := v_value::text::numeric;
  IF v_number <> trunc(v_number) OR v_number NOT BETWEEN -2147483648 AND 2147483647 THEN
    RAISE EXCEPTION 'option % must be an integer, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  IF p_min IS NOT NULL THEN
    PERFORM queen_internal.check_at_least('option ' || p_key, v_number::bigint, p_min);
  END IF;
  RETURN v_number::int;
END;
$function$;

COMMENT ON FUNCTION queen_internal.option_int(p_options jsonb, p_key text, p_default integer, p_min integer) IS 'Integer option p_key of a configure options object: default when absent/null, 22023 when not an integer or below p_min.';
