-- Deploy queen:system_flags to pg
BEGIN;

CREATE FUNCTION queen.check_system_flag_key(p_key text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_key IS NULL OR p_key NOT IN ('maintenance', 'pop_maintenance') THEN
    RAISE EXCEPTION 'unknown system flag %, expected maintenance or pop_maintenance', coalesce(p_key, 'null')
      USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.check_system_flag_key(text) IS
  'Raises 22023 unless p_key is a known system flag (maintenance, pop_maintenance).';

CREATE FUNCTION queen.set_system_flag(p_key text, p_enabled bool) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM queen.check_system_flag_key(p_key);
  IF p_enabled IS NULL THEN
    RAISE EXCEPTION 'enabled must be true or false' USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.system_state AS s (key, value, updated_at)
  VALUES (p_key, jsonb_build_object('enabled', p_enabled), now())
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
  RETURN p_enabled;
END;
$$;
COMMENT ON FUNCTION queen.set_system_flag(text, bool) IS
  'Sets a cluster-wide flag: maintenance (pushes go to the spool) or pop_maintenance (pops return nothing). Returns the new value. 22023 on an unknown key.';

CREATE FUNCTION queen.get_system_flag(p_key text) RETURNS bool
LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM queen.check_system_flag_key(p_key);
  RETURN coalesce((SELECT (s.value ->> 'enabled')::bool FROM queen.system_state s WHERE s.key = p_key), false);
END;
$$;
COMMENT ON FUNCTION queen.get_system_flag(text) IS
  'Reads a cluster-wide flag (maintenance, pop_maintenance); false when never set. 22023 on an unknown key.';

COMMIT;
