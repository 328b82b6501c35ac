-- Revert queen:rules from pg (back to rules@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

ALTER DOMAIN queen.name_text DROP CONSTRAINT name_text_length;
ALTER DOMAIN queen.tenant_text DROP CONSTRAINT tenant_text_length;

DROP FUNCTION
  queen_internal.name_max_chars(),
  queen_internal.name_problem(text),
  queen_internal.check_at_least(text,bigint,bigint),
  queen_internal.iso_millis(timestamp with time zone),
  queen_internal.tenant_arg(text);

CREATE OR REPLACE FUNCTION queen.name_max_chars()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT 255 $function$;
COMMENT ON FUNCTION queen.name_max_chars() IS
  'The longest name (queue, partition, consumer group, KV key), in characters: 255.';

CREATE OR REPLACE FUNCTION queen.name_problem(p_value text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN p_value = '' THEN 'is empty'
              WHEN length(p_value) > queen.name_max_chars()
              THEN format('is longer than %s characters', queen.name_max_chars()) END
$function$;
COMMENT ON FUNCTION queen.name_problem(text) IS
  'Why p_value is not a queen.name_text (is empty / is longer than 255 characters), or null when it is one or is null.';

CREATE OR REPLACE FUNCTION queen.check_at_least(p_what text, p_value bigint, p_min bigint)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF p_value IS NULL OR p_value < p_min THEN
    RAISE EXCEPTION '% must be >= %, got %', p_what, p_min, coalesce(p_value::text, 'null') USING ERRCODE = '22023';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen.check_at_least(text,bigint,bigint) IS
  'Raises 22023 "<p_what> must be >= <p_min>, got <p_value>" when p_value is null or below p_min.';

CREATE OR REPLACE FUNCTION queen.iso_millis(p_at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;
COMMENT ON FUNCTION queen.iso_millis(timestamp with time zone) IS
  'p_at as ISO-8601 UTC text with milliseconds and a Z suffix (null stays null): the one timestamp text of the answers.';

CREATE OR REPLACE FUNCTION queen.tenant_arg(p_tenant text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF length(p_tenant) > queen.name_max_chars() THEN
    RAISE EXCEPTION 'tenant is longer than % characters', queen.name_max_chars() USING ERRCODE = '22023';
  END IF;
  RETURN coalesce(p_tenant, '');
END;
$function$;
COMMENT ON FUNCTION queen.tenant_arg(text) IS
  'p_tenant as a procedure uses it: null = the default tenant ''''; 22023 when longer than 255 characters.';

ALTER DOMAIN queen.name_text ADD CONSTRAINT name_text_length CHECK (((length(VALUE) >= 1) AND (length(VALUE) <= queen.name_max_chars())));
ALTER DOMAIN queen.tenant_text ADD CONSTRAINT tenant_text_length CHECK ((length(VALUE) <= queen.name_max_chars()));

COMMENT ON DOMAIN queen.name_text IS 'A name (queue, partition, consumer group, KV key, timer queue/partition): 1 to queen.name_max_chars() (255) characters.';
COMMENT ON DOMAIN queen.tenant_text IS 'A tenant: '''' (the default tenant) or a name of up to queen.name_max_chars() (255) characters.';

COMMIT;
