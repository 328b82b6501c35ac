-- Deploy queen:system_flags to pg (release 1.0.0, a rework of system_flags@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- system_flags@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.check_system_flag_key(text),
  queen.set_system_flag(text,boolean),
  queen.get_system_flag(text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.check_system_flag_key(p_key text)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
  IF p_key IS NULL OR p_key NOT IN ('maintenance', 'pop_maintenance') THEN
    RAISE EXCEPTION 'unknown system flag %, expected maintenance or pop_maintenance', coalesce(p_key, 'null')
      USING ERRCODE = '22023';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.check_system_flag_key(text) IS
  'Raises 22023 unless p_key is a known system flag (maintenance, pop_maintenance).';

CREATE OR REPLACE FUNCTION queen.set_system_flag(p_key text, p_enabled boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
BEGIN
  PERFORM queen_internal.check_system_flag_key(p_key);
  IF p_enabled IS NULL THEN
    RAISE EXCEPTION 'enabled must be true or false' USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.system_state AS s (key, value, updated_at)
  VALUES (p_key, jsonb_build_object('enabled', p_enabled), now())
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
  RETURN p_enabled;
END;
$function$;
COMMENT ON FUNCTION queen.set_system_flag(text,boolean) IS
  'Sets a cluster-wide flag: maintenance (pushes go to the spool) or pop_maintenance (pops return nothing). Returns the new value. 22023 on an unknown key.';

CREATE OR REPLACE FUNCTION queen.get_system_flag(p_key text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
BEGIN
  PERFORM queen_internal.check_system_flag_key(p_key);
  RETURN coalesce((SELECT (s.value ->> 'enabled')::bool FROM queen.system_state s WHERE s.key = p_key), false);
END;
$function$;
COMMENT ON FUNCTION queen.get_system_flag(text) IS
  'Reads a cluster-wide flag (maintenance, pop_maintenance); false when never set. 22023 on an unknown key.';

RESET ROLE;

COMMIT;
