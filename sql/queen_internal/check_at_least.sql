CREATE OR REPLACE FUNCTION queen_internal.check_at_least(p_what text, p_value bigint, p_min bigint)
 RETURNS void
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF p_value IS NULL OR p_value < p_min THEN
    RAISE EXCEPTION '% must be >= %, got %', p_what, p_min, coalesce(p_value::text, 'null') USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_at_least(p_what text, p_value bigint, p_min bigint) IS 'Raises 22023 "<p_what> must be >= <p_min>, got <p_value>" when p_value is null or below p_min.';
