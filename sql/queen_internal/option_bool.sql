CREATE OR REPLACE FUNCTION queen_internal.option_bool(p_options jsonb, p_key text, p_default boolean)
 RETURNS boolean
 LANGUAGE plpgsql IMMUTABLE AS $function$
DECLARE
  v_value jsonb := p_options -> p_key;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN p_default;
  END IF;
  IF jsonb_typeof(v_value) <> 'boolean' THEN
    RAISE EXCEPTION 'option % must be a boolean, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  RETURN v_value::text::bool;
END;
$function$;

COMMENT ON FUNCTION queen_internal.option_bool(p_options jsonb, p_key text, p_default boolean) IS 'Boolean option p_key of a configure options object: default when absent/null, 22023 when not a JSON boolean.';
