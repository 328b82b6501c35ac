-- Deploy queen:rules to pg (release 1.0.0, a rework of rules@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- rules@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

-- What refers to the functions replaced below.
ALTER DOMAIN queen.name_text DROP CONSTRAINT name_text_length;
ALTER DOMAIN queen.tenant_text DROP CONSTRAINT tenant_text_length;

DROP FUNCTION
  queen.name_max_chars(),
  queen.name_problem(text),
  queen.check_at_least(text,bigint,bigint),
  queen.iso_millis(timestamp with time zone),
  queen.tenant_arg(text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.name_max_chars()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT 255 $function$;
COMMENT ON FUNCTION queen_internal.name_max_chars() IS
  'The longest name (queue, partition, consumer group, KV key), in characters: 255.';

CREATE OR REPLACE FUNCTION queen_internal.name_problem(p_value text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN p_value = '' THEN 'is empty'
              WHEN length(p_value) > queen_internal.name_max_chars()
              THEN format('is longer than %s characters', queen_internal.name_max_chars()) END
$function$;
COMMENT ON FUNCTION queen_internal.name_problem(text) IS
  'Why p_value is not a queen.name_text (is empty / is longer than 255 characters), or null when it is one or is null.';

CREATE OR REPLACE FUNCTION queen_internal.check_at_least(p_what text, p_value bigint, p_min bigint)
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
COMMENT ON FUNCTION queen_internal.check_at_least(text,bigint,bigint) IS
  'Raises 22023 "<p_what> must be >= <p_min>, got <p_value>" when p_value is null or below p_min.';

CREATE OR REPLACE FUNCTION queen_internal.iso_millis(p_at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;
COMMENT ON FUNCTION queen_internal.iso_millis(timestamp with time zone) IS
  'p_at as ISO-8601 UTC text with milliseconds and a Z suffix (null stays null): the one timestamp text of the answers.';

CREATE OR REPLACE FUNCTION queen_internal.tenant_arg(p_tenant text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF length(p_tenant) > queen_internal.name_max_chars() THEN
    RAISE EXCEPTION 'tenant is longer than % characters', queen_internal.name_max_chars() USING ERRCODE = '22023';
  END IF;
  RETURN coalesce(p_tenant, '');
END;
$function$;
COMMENT ON FUNCTION queen_internal.tenant_arg(text) IS
  'p_tenant as a procedure uses it: null = the default tenant ''''; 22023 when longer than 255 characters.';

RESET ROLE;

ALTER DOMAIN queen.name_text ADD CONSTRAINT name_text_length CHECK (((length(VALUE) >= 1) AND (length(VALUE) <= queen_internal.name_max_chars())));
ALTER DOMAIN queen.tenant_text ADD CONSTRAINT tenant_text_length CHECK ((length(VALUE) <= queen_internal.name_max_chars()));

COMMENT ON DOMAIN queen.name_text IS 'A name (queue, partition, consumer group, KV key, timer queue/partition): 1 to queen_internal.name_max_chars() (255) characters.';
COMMENT ON DOMAIN queen.tenant_text IS 'A tenant: '''' (the default tenant) or a name of up to queen_internal.name_max_chars() (255) characters.';

COMMIT;
