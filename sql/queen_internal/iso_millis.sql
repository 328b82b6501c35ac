CREATE OR REPLACE FUNCTION queen_internal.iso_millis(p_at timestamp with time zone)
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;

COMMENT ON FUNCTION queen_internal.iso_millis(p_at timestamp with time zone) IS 'p_at as ISO-8601 UTC text with milliseconds and a Z suffix (null stays null): the one timestamp text of the answers.';
