CREATE OR REPLACE FUNCTION queen_internal.name_problem(p_value text)
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT CASE WHEN p_value = '' THEN 'is empty'
              WHEN length(p_value) > queen_internal.name_max_chars()
              THEN format('is longer than %s characters', queen_internal.name_max_chars()) END
$function$;

COMMENT ON FUNCTION queen_internal.name_problem(p_value text) IS 'Why p_value is not a queen.name_text (is empty / is longer than 255 characters), or null when it is one or is null.';
