-- Deploy queen:kv to pg (release 1.0.0, a rework of kv@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- kv@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.kv_check_key(text),
  queen.kv_is_live(timestamp with time zone,timestamp with time zone),
  queen.kv_set(text,jsonb,bigint,text,timestamp with time zone),
  queen.kv_get(text,text,timestamp with time zone),
  queen.kv_delete(text,text,timestamp with time zone),
  queen.kv_prune_expired(integer,timestamp with time zone);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.kv_check_key(p_key text)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF p_key IS NULL OR p_key = '' THEN
    RAISE EXCEPTION 'kv key is required' USING ERRCODE = '22023';
  END IF;
  IF queen_internal.name_problem(p_key) IS NOT NULL THEN
    RAISE EXCEPTION 'kv key % (%)', queen_internal.name_problem(p_key), length(p_key) USING ERRCODE = '22023';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.kv_check_key(text) IS
  'Raises 22023 when a KV key is null, empty or longer than queen_internal.name_max_chars() (255) characters.';

CREATE OR REPLACE FUNCTION queen_internal.kv_is_live(p_expires_at timestamp with time zone, p_now timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT p_expires_at IS NULL OR p_expires_at > p_now $function$;
COMMENT ON FUNCTION queen_internal.kv_is_live(timestamp with time zone,timestamp with time zone) IS
  'True when a KV row expiring at p_expires_at (null = never) is still live at p_now.';

CREATE OR REPLACE FUNCTION queen.kv_set(p_key text, p_value jsonb, p_ttl_ms bigint, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_now        timestamptz := coalesce(p_now, clock_timestamp());
  v_tenant     text := queen_internal.tenant_arg(p_tenant);
  v_expires_at timestamptz;
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
  IF p_value IS NULL THEN
    -- JSON null is a value ('null'::jsonb); SQL NULL means the caller forgot it.
    RAISE EXCEPTION 'kv value is required (use JSON null to store null)' USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms < 0 THEN
    RAISE EXCEPTION 'kv ttlMs must not be negative (%)', p_ttl_ms USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms IS NOT NULL THEN
    v_expires_at := v_now + p_ttl_ms * interval '1 millisecond';
  END IF;
  INSERT INTO queen.kv AS k (tenant, key, value, expires_at, updated_at)
  VALUES (v_tenant, p_key, p_value, v_expires_at, v_now)
  ON CONFLICT ON CONSTRAINT kv_pkey DO UPDATE
    SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at;
  RETURN v_expires_at;
END;
$function$;
COMMENT ON FUNCTION queen.kv_set(text,jsonb,bigint,text,timestamp with time zone) IS
  'Stores p_value under p_key of tenant p_tenant ('''' = default; insert or replace). p_ttl_ms null = no expiry, 0 = expired at once; the TTL counts from p_now (null = clock_timestamp()). Returns the new expires_at (null without TTL). 22023 on a bad key, SQL NULL value or negative TTL.';

CREATE OR REPLACE FUNCTION queen.kv_get(p_key text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(value jsonb, expires_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
  RETURN QUERY
    SELECT k.value, k.expires_at
      FROM queen.kv k
     WHERE k.tenant = queen_internal.tenant_arg(p_tenant) AND k.key = p_key
       AND queen_internal.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp()));
END;
$function$;
COMMENT ON FUNCTION queen.kv_get(text,text,timestamp with time zone) IS
  'The value and expires_at of p_key of tenant p_tenant ('''' = default); no row when the key is absent or its TTL has passed at p_now (null = clock_timestamp()), even before the sweeper deletes it. 22023 on a bad key.';

CREATE OR REPLACE FUNCTION queen.kv_delete(p_key text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_was_live boolean;
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
  DELETE FROM queen.kv k
   WHERE k.tenant = queen_internal.tenant_arg(p_tenant) AND k.key = p_key
  RETURNING queen_internal.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp())) INTO v_was_live;
  -- An expired row is removed too, but it already read as absent: report false.
  RETURN coalesce(v_was_live, false);
END;
$function$;
COMMENT ON FUNCTION queen.kv_delete(text,text,timestamp with time zone) IS
  'Deletes p_key of tenant p_tenant ('''' = default). True when a value live at p_now (null = clock_timestamp()) was deleted, false when the key was absent or already expired. 22023 on a bad key.';

CREATE OR REPLACE FUNCTION queen.kv_prune_expired(p_limit integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_deleted int;
BEGIN
  PERFORM queen_internal.check_at_least('kv_prune_expired limit', p_limit, 1);
  -- SKIP LOCKED: every broker prunes in parallel without waiting on the others.
  WITH expired AS (
    SELECT k.tenant, k.key
      FROM queen.kv k
     WHERE k.expires_at <= coalesce(p_now, clock_timestamp())
     ORDER BY k.expires_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM queen.kv k USING expired e WHERE k.tenant = e.tenant AND k.key = e.key;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$function$;
COMMENT ON FUNCTION queen.kv_prune_expired(integer,timestamp with time zone) IS
  'Deletes at most p_limit KV rows expired at p_now (null = clock_timestamp()), oldest expiry first, rows locked by another pruner skipped. Returns the number deleted. 22023 when p_limit < 1.';

RESET ROLE;

COMMIT;
