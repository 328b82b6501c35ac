CREATE OR REPLACE FUNCTION queen_internal.uuid_or_null(p_text text)
 RETURNS uuid
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT CASE WHEN p_text ~* '^\{?[0-9a-f]{8}-?([0-9a-f]{4}-?){3}[0-9a-f]{12}\}?$' THEN p_text::uuid END
$function$;

COMMENT ON FUNCTION queen_internal.uuid_or_null(p_text text) IS 'p_text cast to uuid, or null when it is not a UUID.';
