-- Raises 22023 naming the bound and its variable when p_count exceeds it.
CREATE OR REPLACE FUNCTION queen_internal.check_stream_limit(p_name text, p_what text, p_count bigint)
 RETURNS void
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_limit bigint := queen_internal.stream_limit(p_name);
BEGIN
  IF v_limit > 0 AND p_count > v_limit THEN
    RAISE EXCEPTION '% (%) exceeds the limit of % (QUEEN_STREAM_%)', p_what, p_count, v_limit, upper(p_name)
      USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_stream_limit(p_name text, p_what text, p_count bigint) IS 'Raises SQLSTATE 22023 "<what> (<count>) exceeds the limit of <limit> (QUEEN_STREAM_<NAME>)" past queen_internal.stream_limit(p_name); 0 = unlimited.';
