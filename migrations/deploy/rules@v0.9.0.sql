-- Deploy queen:rules to pg
-- The argument rules every procedure shares: what a name is, and the lower
-- bound of an integer argument; and the one text form of an instant in the
-- answers. One definition each, so a limit or a format changes in one place.
BEGIN;

-- The longest name (queue, partition, consumer group, KV key) in characters, as
-- length() counts them. The broker's NAME_MAX_CHARS may only lower it.
CREATE FUNCTION queen.name_max_chars() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 255 $$;
COMMENT ON FUNCTION queen.name_max_chars() IS
  'The longest name (queue, partition, consumer group, KV key), in characters: 255.';

-- A name column: 1 to name_max_chars() characters. A value outside raises 23514
-- naming the constraint; procedures check their arguments first and raise 22023
-- naming the field (see name_problem).
CREATE DOMAIN queen.name_text AS text
  CONSTRAINT name_text_length CHECK (length(VALUE) BETWEEN 1 AND queen.name_max_chars());
COMMENT ON DOMAIN queen.name_text IS
  'A name (queue, partition, consumer group, KV key, timer queue/partition): 1 to queen.name_max_chars() (255) characters.';

-- What is wrong with a name, for a procedure's own 22023 message: 'is empty',
-- 'is longer than 255 characters', or null when it is a valid name (null too: a
-- missing name is each caller's own message).
CREATE FUNCTION queen.name_problem(p_value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_value = '' THEN 'is empty'
              WHEN length(p_value) > queen.name_max_chars()
              THEN format('is longer than %s characters', queen.name_max_chars()) END
$$;
COMMENT ON FUNCTION queen.name_problem(text) IS
  'Why p_value is not a queen.name_text (is empty / is longer than 255 characters), or null when it is one or is null.';

-- Raises 22023 "<p_what> must be >= <p_min>, got <p_value>" when p_value is null
-- or below p_min: the bound check of batch sizes, limits, offsets and durations.
CREATE FUNCTION queen.check_at_least(p_what text, p_value bigint, p_min bigint) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_value IS NULL OR p_value < p_min THEN
    RAISE EXCEPTION '% must be >= %, got %', p_what, p_min, coalesce(p_value::text, 'null') USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.check_at_least(text, bigint, bigint) IS
  'Raises 22023 "<p_what> must be >= <p_min>, got <p_value>" when p_value is null or below p_min.';

-- An instant as the admin, listing and statistics answers render it: ISO-8601 in UTC
-- with milliseconds and a Z ("2025-03-04T09:15:26.123Z").
CREATE FUNCTION queen.iso_millis(p_at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
COMMENT ON FUNCTION queen.iso_millis(timestamptz) IS
  'p_at as ISO-8601 UTC text with milliseconds and a Z suffix (null stays null): the one timestamp text of the answers.';

-- A tenant (docs/tenants.md): a name, or '' for the default tenant (authentication
-- off, or a token without the tenant claim). Every queue belongs to one tenant;
-- everything under a queue is scoped through it.
CREATE DOMAIN queen.tenant_text AS text
  CONSTRAINT tenant_text_length CHECK (length(VALUE) <= queen.name_max_chars());
COMMENT ON DOMAIN queen.tenant_text IS
  'A tenant: '''' (the default tenant) or a name of up to queen.name_max_chars() (255) characters.';

-- The tenant argument of a procedure: null means the default tenant ('') so a DBA's
-- call without it acts there; a tenant over 255 characters raises 22023.
CREATE FUNCTION queen.tenant_arg(p_tenant text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF length(p_tenant) > queen.name_max_chars() THEN
    RAISE EXCEPTION 'tenant is longer than % characters', queen.name_max_chars() USING ERRCODE = '22023';
  END IF;
  RETURN coalesce(p_tenant, '');
END;
$$;
COMMENT ON FUNCTION queen.tenant_arg(text) IS
  'p_tenant as a procedure uses it: null = the default tenant ''''; 22023 when longer than 255 characters.';

COMMIT;
